use super::*;
use crate::checks::text::ground::Lowered;
use crate::checks::walk::tests::{list, record, s, Arg, Plain, TooMany};

fn text(units: &[u16]) -> String {
    String::from_utf16(units).unwrap()
}

/// Texts held as plain strings, lowered when shown.
struct Plainly(Vec<Lowered>);

impl Texts<TooMany> for Plainly {
    fn scan(
        &mut self,
        visit: &mut dyn FnMut(usize, crate::checks::text::ground::GroundText<'_>) -> bool,
    ) -> Result<(), TooMany> {
        for (i, t) in self.0.iter().enumerate() {
            if !visit(i, t.as_ground()) {
                break;
            }
        }
        Ok(())
    }
}

fn texts(items: &[&str]) -> Plainly {
    Plainly(items.iter().map(|t| Lowered::of_units(&units(t))).collect())
}

fn choice(args: Arg, enums: &[&str]) -> Choice<Arg> {
    Choice {
        tool_name: units("backup_status"),
        tool_call_id: units("call-2"),
        args,
        arguments_from: vec![units("fleet_report")],
        declared_enums: enums.iter().map(|e| units(e)).collect(),
    }
}

fn judge(
    args: Arg,
    enums: &[&str],
    grounded: &[&str],
    assistant: &[&str],
    external: &[(&str, &str)],
) -> UnsupportedArguments {
    let external = external
        .iter()
        .filter_map(|(v, s)| ExternalGround::usable(&units(v), || Ok::<_, ()>(Some(units(s)))).unwrap())
        .collect();
    let frame = Frame {
        served: texts(grounded),
        served_count: grounded.len(),
        assistant: texts(assistant),
        assistant_count: assistant.len(),
        external,
    };
    let mut calls = [Some(choice(args, enums))];
    unsupported_arguments_of(
        &mut Plain::default(),
        1,
        |_| Ok(frame),
        |_, i| Ok(calls[i].take().unwrap()),
        2.0,
    )
    .unwrap()
}

const PROMPT: &str = "You are a fleet triage assistant.";
const ASKED: &str = "What is the backup status for that machine?";
const OWN: &str = "The nightly job bkp-4417-ganymede-tier2 finished at 02:14.";

fn machine(value: &str) -> Arg {
    record(vec![("machine", s(value))])
}

#[test]
fn the_field_case_and_its_variants() {
    let found = judge(machine("4417-ganymede"), &[], &[PROMPT, ASKED], &[OWN], &[]);
    assert_eq!(found.findings.len(), 1);
    let f = &found.findings[0];
    assert_eq!(f.kind, "unsupported-argument");
    assert_eq!(f.predicate.as_deref().map(text).as_deref(), Some("machine"));
    assert_eq!(text(f.witnesses[1].value.as_text()), prose::SELF_REFERENCED);
    assert!(text(&f.witnesses[1].provenance).contains("2 served string"));
    assert!(text(&f.witnesses[1].provenance).contains("1 assistant turn"));
    assert!(text(&f.message).contains("own earlier answer"));
    assert!(text(&f.message).contains("fleet_report"));
    assert!(!f.advisory);

    let served = judge(
        machine("4417-ganymede"),
        &[],
        &[PROMPT, ASKED, "FLEET: callisto-02, 4417-ganymede"],
        &[OWN],
        &[],
    );
    assert_eq!(served, UnsupportedArguments::default());

    let nowhere = judge(machine("4417-ganymede"), &[], &[PROMPT, ASKED], &[], &[]);
    assert_eq!(text(nowhere.findings[0].witnesses[1].value.as_text()), prose::NOWHERE);
    assert!(text(&nowhere.findings[0].message).contains("nowhere"));

    let excused =
        judge(machine("4417-ganymede"), &[], &[PROMPT], &[OWN], &[("4417-ganymede", "viewer-selection")]);
    assert!(excused.findings.is_empty());
    assert_eq!(text(&excused.external_groundings[0].source), "viewer-selection");
    assert_eq!(text(&excused.external_groundings[0].path), "machine");

    assert_eq!(judge(machine("abc"), &[], &[], &[], &[]), UnsupportedArguments::default());
    assert_eq!(
        judge(machine("4417-ganymede"), &["4417-GANYMEDE"], &[], &[], &[]),
        UnsupportedArguments::default()
    );
}

#[test]
fn the_fences_in_order() {
    // Enum members are lowered, never trimmed; the needle is trimmed.
    assert_eq!(judge(machine("  nightly "), &["NIGHTLY"], &[], &[], &[]).findings.len(), 0);
    assert_eq!(judge(machine("nightly"), &[" nightly"], &[], &[], &[]).findings.len(), 1);
    // Served wins over external: no excusal is recorded.
    let both = judge(machine("srv-4471"), &[], &["srv-4471 up"], &[], &[("srv-4471", "panel")]);
    assert_eq!(both, UnsupportedArguments::default());
    // The first usable external entry names the source; blanks are dropped.
    let first = judge(
        machine("srv-4471"),
        &[],
        &[],
        &[],
        &[("", "a"), ("x", " "), ("  SRV-4471  ", "b"), ("srv-4471", "c")],
    );
    assert_eq!(text(&first.external_groundings[0].source), "b");
    let usable =
        |value: &str| ExternalGround::usable(&units(value), || Ok::<_, ()>(Some(units("s")))).unwrap();
    assert!(usable("\u{feff}").is_none());
    assert!(usable("\u{85}").is_some());
    // The source of a blank value is never asked for.
    assert!(ExternalGround::usable(&units(" "), || -> Result<_, ()> { panic!("read") }).unwrap().is_none());
}

#[test]
fn every_leaf_is_judged_in_walk_order() {
    let args = record(vec![
        ("a.b", s("first-value")),
        ("a", record(vec![("b", s("second-value"))])),
        ("list", list(vec![s("xyz"), s("third-value")])),
    ]);
    let found = judge(args, &[], &[], &["second-value"], &[]);
    let paths: Vec<String> = found.findings.iter().map(|f| text(f.predicate.as_ref().unwrap())).collect();
    assert_eq!(paths, ["a.b", "a.b", "list.1"]);
    let states: Vec<String> = found.findings.iter().map(|f| text(f.witnesses[1].value.as_text())).collect();
    assert_eq!(states, [prose::NOWHERE, prose::SELF_REFERENCED, prose::NOWHERE]);
}

#[test]
fn no_call_reads_nothing() {
    let answer = unsupported_arguments_of::<Plain, Plainly, Plainly>(
        &mut Plain::default(),
        0,
        |_| panic!("the frame must not be read"),
        |_, _| panic!("no call to read"),
        1.0,
    );
    assert_eq!(answer.unwrap(), UnsupportedArguments::default());
}

#[test]
fn the_message_quotes_a_clipped_value_and_stays_short() {
    let long = "x".repeat(409);
    let found = judge(machine(&long), &[], &[], &[], &[]);
    let f = &found.findings[0];
    assert_eq!(text(f.witnesses[0].value.as_text()), long);
    let message = text(&f.message);
    assert!(message.contains(&format!("\"{}\u{2026}\"", "x".repeat(79))), "{message}");
    assert!(f.message.len() < 600, "{} units", f.message.len());
}

#[test]
fn an_empty_arguments_from_asks_to_reread() {
    let mut c = choice(machine("zzzz-1"), &[]);
    c.arguments_from.clear();
    let frame = Frame {
        served: texts(&[]),
        served_count: 0,
        assistant: texts(&[]),
        assistant_count: 0,
        external: vec![],
    };
    let mut c = Some(c);
    let found =
        unsupported_arguments_of(&mut Plain::default(), 1, |_| Ok(frame), |_, _| Ok(c.take().unwrap()), 0.0)
            .unwrap();
    assert!(text(&found.findings[0].message).contains(prose::REREAD));
}
