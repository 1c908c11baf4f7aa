//! The typings every check shares (dispositions, seams, findings and their
//! witnesses, as agentfootprint's family of checks names them) and the one
//! place a core finding becomes a JavaScript object.

use crate::binding::napi::{Handle, Js};
use crate::checks::finding::{
    Assertion as CoreAssertion, ContextError as CoreContextError, SubjectRef as CoreSubject, WitnessValue,
};
use napi::bindgen_prelude::Utf16String;
use napi::Result;
use napi_derive::napi;

/// The ledger row an encounter files.
#[napi(string_enum)]
pub enum Disposition {
    #[napi(value = "checked-pass")]
    CheckedPass,
    #[napi(value = "checked-fail")]
    CheckedFail,
    #[napi(value = "not-applicable")]
    NotApplicable,
    #[napi(value = "unreachable")]
    Unreachable,
}

/// The seam a finding was filed at: `empty-lookup` files at `write`,
/// `unsupported-argument` at `choice`, `dangling-reference` at `compose`.
#[napi(string_enum)]
pub enum IntegritySeam {
    #[napi(value = "write")]
    Write,
    #[napi(value = "compose")]
    Compose,
    #[napi(value = "wire")]
    Wire,
    #[napi(value = "choice")]
    Choice,
    #[napi(value = "claim")]
    Claim,
}

/// The kinds of finding in agentfootprint's family; seamguard files
/// `empty-lookup`, `unsupported-argument` and `dangling-reference`.
#[napi(string_enum)]
pub enum ContextErrorKind {
    #[napi(value = "invariant-violation")]
    InvariantViolation,
    #[napi(value = "unsupported-argument")]
    UnsupportedArgument,
    #[napi(value = "dangling-reference")]
    DanglingReference,
    #[napi(value = "duplicate-execution")]
    DuplicateExecution,
    #[napi(value = "unsupported-claim")]
    UnsupportedClaim,
    #[napi(value = "empty-lookup")]
    EmptyLookup,
    #[napi(value = "column-type-mismatch")]
    ColumnTypeMismatch,
    #[napi(value = "missing-column")]
    MissingColumn,
    #[napi(value = "prior-turn-evidence")]
    PriorTurnEvidence,
}

/// How a witness knows what it says: `asserted` first-hand, `quoted` from
/// someone else.
#[napi(string_enum)]
pub enum AssertionStratum {
    #[napi(value = "asserted")]
    Asserted,
    #[napi(value = "quoted")]
    Quoted,
}

/// What a finding is about.
// Declared for the typings; values are built by `findings_to_js`, in agentfootprint's key order.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct SubjectRef {
    #[napi(readonly)]
    pub kind: String,
    #[napi(readonly)]
    pub id: Utf16String,
}

/// One witness of a finding.
// Declared for the typings; values are built by `findings_to_js`, in agentfootprint's key order.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct Assertion {
    #[napi(readonly)]
    pub subject: SubjectRef,
    #[napi(readonly)]
    pub predicate: Utf16String,
    #[napi(readonly, ts_type = "unknown")]
    pub value: Utf16String,
    #[napi(readonly)]
    pub epoch: Option<f64>,
    #[napi(readonly)]
    pub stratum: AssertionStratum,
    #[napi(readonly)]
    pub provenance: Utf16String,
    #[napi(readonly)]
    pub runtime_stage_id: Option<String>,
    #[napi(readonly, ts_type = "true")]
    pub synthetic: Option<bool>,
}

/// One finding. `empty-lookup` findings are always advisory (doubt, never
/// contradiction); the other two checks' never are.
// Declared for the typings; values are built by `findings_to_js`, in agentfootprint's key order.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ContextError {
    #[napi(readonly)]
    pub kind: ContextErrorKind,
    #[napi(readonly)]
    pub seam: IntegritySeam,
    #[napi(readonly, ts_type = "readonly SubjectRef[]")]
    pub subjects: Vec<SubjectRef>,
    #[napi(readonly)]
    pub predicate: Option<Utf16String>,
    #[napi(readonly, ts_type = "readonly Assertion[]")]
    pub witnesses: Vec<Assertion>,
    #[napi(readonly)]
    pub epoch: Option<f64>,
    #[napi(readonly, ts_type = "true")]
    pub synthetic: Option<bool>,
    #[napi(readonly, ts_type = "true")]
    pub advisory: Option<bool>,
    #[napi(readonly)]
    pub message: Utf16String,
}

/// The findings as an array of objects with agentfootprint's keys, in its
/// order: `kind, seam, subjects, predicate?, witnesses, epoch, advisory?,
/// message`, and for each witness `subject, predicate, value, epoch,
/// stratum, provenance`.
pub(super) fn findings_to_js(js: Js, findings: &[CoreContextError]) -> Result<Handle> {
    let mut shared = Shared { js, subjects: Vec::new() };
    let made = findings.iter().map(|finding| shared.finding(finding)).collect::<Result<Vec<_>>>()?;
    js.array(&made)
}

/// Builds one answer's findings. A subject is made once per answer and
/// shared by the finding's `subjects` and its witnesses, as one object
/// literal reused in JavaScript would be. Nothing outlives the answer.
struct Shared<'f> {
    js: Js,
    subjects: Vec<(&'f CoreSubject, Handle)>,
}

impl<'f> Shared<'f> {
    fn subject(&mut self, subject: &'f CoreSubject) -> Result<Handle> {
        if let Some((_, made)) = self.subjects.iter().find(|(known, _)| *known == subject) {
            return Ok(*made);
        }
        let js = self.js;
        let made = js.object(&[(c"kind", js.str(subject.kind)?), (c"id", js.string(&subject.id)?)])?;
        self.subjects.push((subject, made));
        Ok(made)
    }

    fn finding(&mut self, finding: &'f CoreContextError) -> Result<Handle> {
        let js = self.js;
        let epoch = js.number(finding.epoch)?;
        let stratum = js.str(CoreAssertion::STRATUM)?;
        let witnesses = finding
            .witnesses
            .iter()
            .map(|witness| {
                let properties = [
                    (c"subject", self.subject(&witness.subject)?),
                    (c"predicate", js.string(&witness.predicate)?),
                    (
                        c"value",
                        match &witness.value {
                            WitnessValue::Text(text) => js.string(text)?,
                            WitnessValue::Number(number) => js.number(*number)?,
                        },
                    ),
                    (c"epoch", js.number(witness.epoch)?),
                    (c"stratum", stratum),
                    (c"provenance", js.string(&witness.provenance)?),
                ];
                js.object(&properties)
            })
            .collect::<Result<Vec<_>>>()?;
        let subjects =
            finding.subjects.iter().map(|subject| self.subject(subject)).collect::<Result<Vec<_>>>()?;
        let mut properties = vec![
            (c"kind", js.str(finding.kind)?),
            (c"seam", js.str(finding.seam.as_str())?),
            (c"subjects", js.array(&subjects)?),
        ];
        if let Some(predicate) = &finding.predicate {
            properties.push((c"predicate", js.string(predicate)?));
        }
        properties.push((c"witnesses", js.array(&witnesses)?));
        properties.push((c"epoch", epoch));
        if finding.advisory {
            properties.push((c"advisory", js.boolean(true)?));
        }
        properties.push((c"message", js.string(&finding.message)?));
        js.object(&properties)
    }
}
