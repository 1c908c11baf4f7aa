//! The stream filter for JavaScript: `ScaffoldingFilter` and `FilterPlan`,
//! `SCAFFOLD_PATTERNS`, `SCAFFOLD_PRESETS` and `SCAFFOLD_SPECIAL_TOKENS`,
//! `ScaffoldRegistry` and `usableTools`.
//!
//! Strings cross as UTF-16 in both directions: napi-rs's `String`
//! conversion would turn lone surrogates into U+FFFD, so the chunk is taken
//! as a raw handle and read as code units, and answers are built from code
//! units. The options are read by hand too, so that every bad value is a
//! JavaScript error naming it (`options.patterns[2].end`).
//!
//! `ScaffoldingFilter` and `FilterPlan` are JavaScript classes
//! (lib/filter/scaffolding-filter.cjs) over the functions of `plan` and `stream`.
//! `plan` reads and compiles options once, into a plan that every stream
//! opened from it shares; `stream` keeps each stream's state in a `Box`
//! held through a tagged handle, from the feed that needs it to the flush
//! that ends it. `feed` and `finish` hand back an event for each strip
//! (`strip_event`) when the plan's options have `onStrip`, and the class
//! calls the callback with them. This file declares what the typings show
//! and builds the preset values.

mod plan;
mod stream;

use std::ffi::{CStr, CString};

use super::napi::{Handle, Js};
use napi::bindgen_prelude::*;
use napi::{sys, Env, ValueType};
use napi_derive::napi;

use crate::filter::{self as scaffolding, PresetPart, PresetPattern};

/// The JavaScript `RegExp` source of each default pattern, in the filter's
/// order: the tool-call span (non-greedy, up to its first end), then the
/// standalone tokens `<|tool_calls|>` and `<|tool_call|>`. Each works as
/// `new RegExp(source)`.
#[napi]

pub const SCAFFOLD_PATTERNS: [&str; 3] = scaffolding::DEFAULT_PATTERN_SOURCES;

/// A span pattern: a match of `start`, then anything, up to and including
/// the first match of `end` after it. A string is a literal; a `RegExp` is
/// a regular expression.
// Declared for the typings only: patterns are read by hand.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ScaffoldSpan {
    #[napi(readonly, ts_type = "string | RegExp")]
    pub start: String,
    #[napi(readonly, ts_type = "string | RegExp")]
    pub end: String,
}

/// A token pattern: the literal string on its own, or a match of the
/// `RegExp`.
// Declared for the typings only: patterns are read by hand.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ScaffoldToken {
    #[napi(readonly, ts_type = "string | RegExp")]
    pub token: String,
}

/// A regular-expression pattern: a match of `regex`, given as a `RegExp` or
/// as its source.
// Declared for the typings only: patterns are read by hand.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ScaffoldRegex {
    #[napi(readonly, ts_type = "string | RegExp")]
    pub regex: String,
}

/// An opening followed by JSON: a match of `start`, optional whitespace,
/// and one complete JSON object or array (strings and escapes respected).
/// Nothing matches where no such value follows.
// Declared for the typings only: patterns are read by hand.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ScaffoldJson {
    #[napi(readonly, ts_type = "string | RegExp")]
    pub start: String,
    #[napi(readonly, ts_type = "true")]
    pub json: bool,
}

/// A bare JSON tool call standing as the whole answer or at the very start
/// of a line, not indented (an indented object is a value nested in
/// something larger), optionally in a ```` ```json ```` fence that begins
/// its line: an object with a string
/// `name` (or `function`) and an object `arguments` or `parameters`, a list
/// of them, `{"tool_calls": [...]}`, or OpenAI's
/// `{"type": "function", "function": {...}}`. A tool definition (with a
/// `description`, or a JSON Schema as `parameters`) is not a call. An
/// ordinary JSON answer passes unchanged, once it has closed.
// Declared for the typings only: patterns are read by hand.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ScaffoldJsonCall {
    #[napi(readonly, ts_type = "ScaffoldJsonCallOptions")]
    pub json_call: (),
}

/// Which JSON calls to strip.
// Declared for the typings only: patterns are read by hand.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ScaffoldJsonCallOptions {
    /// Only calls naming one of these tools (every call of a list must).
    /// Left out: a call of any tool.
    #[napi(readonly, ts_type = "ReadonlyArray<string> | undefined")]
    pub tool_names: Option<()>,
}

/// What `flush()` does with a span that never closed (and what happens to
/// a span that outgrows `maxHeld`): `'emit'` returns it as text, as the
/// reference filter does; `'drop'` strips it.
#[napi(string_enum)]
pub enum OpenSpanPolicy {
    #[napi(value = "emit")]
    Emit,
    #[napi(value = "drop")]
    Drop,
}

/// Why a span was stripped: `'match'`, a complete match of a pattern;
/// `'unclosed-at-end'`, a span still open at `flush()` under
/// `openSpanAtEnd: 'drop'`; `'max-held'`, an open span that outgrew
/// `maxHeld` under `openSpanAtEnd: 'drop'`.
#[napi(string_enum)]
pub enum StripReason {
    #[napi(value = "match")]
    Match,
    #[napi(value = "unclosed-at-end")]
    UnclosedAtEnd,
    #[napi(value = "max-held")]
    MaxHeld,
}

/// One stripped span, as `onStrip` receives it.
// Declared for the typings; events are built in `strip_event`.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct StripEvent {
    /// The stripped text, whole. When the callback runs it is already
    /// counted in `strippedChars` and listed in `strippedSpans`.
    #[napi(readonly)]
    pub span: String,
    #[napi(readonly)]
    pub reason: StripReason,
    /// The index of the pattern that stripped it: in `options.patterns`,
    /// or in `SCAFFOLD_PATTERNS` for the default patterns; -1 when
    /// tool-aware detection (`options.tools`) stripped it.
    #[napi(readonly)]
    pub pattern: i32,
    /// Under tool-aware detection, the calls read out of the span, in
    /// order (a span may hold several, or none: a call's residue, or a
    /// call the end of the stream cut off).
    #[napi(readonly)]
    pub calls: Option<Vec<LeakedCall>>,
}

/// A tool call read out of leaked markup.
// Declared for the typings; built in `strip_event`.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct LeakedCall {
    /// The tool it names: an offered tool, or, when `offered` is `false`,
    /// a tool that was not on offer.
    #[napi(readonly)]
    pub name: String,
    /// `false` for a call to a tool that was not on offer (the model made
    /// it up, or the app withdrew it): it is stripped, and must never run
    /// (heal leaves it). Absent for a call to an offered tool.
    #[napi(readonly, ts_type = "false | undefined")]
    pub offered: Option<()>,
    /// Its arguments as a JSON value: parsed from JSON, from parameter
    /// tags, or from pythonic `key=value` arguments. Absent when they did
    /// not parse; then `rawInput` holds their text.
    #[napi(readonly, ts_type = "unknown")]
    pub input: Option<()>,
    /// The argument text as written, when it did not parse.
    #[napi(readonly)]
    pub raw_input: Option<String>,
}

/// An offered tool for tool-aware detection: its name, and the names of
/// its parameters when known (then only those count as arguments in
/// parameter tags).
// Declared for the typings only: tools are read by hand.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ScaffoldTool {
    #[napi(readonly)]
    pub name: String,
    #[napi(readonly, ts_type = "ReadonlyArray<string> | undefined")]
    pub parameters: Option<()>,
}

/// Why `usableTools` left a tool out: `'empty-name'`; `'long-name'`, over
/// 256 UTF-16 code units; `'line-break'`, a line feed or carriage return
/// in the name; `'repeated-name'`, the name of an earlier tool, which is
/// kept. Or why it kept a tool with fewer parameters: `'empty-parameter'`,
/// its empty parameter names are dropped.
#[napi(string_enum)]
pub enum SkippedToolReason {
    #[napi(value = "empty-name")]
    EmptyName,
    #[napi(value = "long-name")]
    LongName,
    #[napi(value = "line-break")]
    LineBreak,
    #[napi(value = "repeated-name")]
    RepeatedName,
    #[napi(value = "empty-parameter")]
    EmptyParameter,
}

/// A tool `usableTools` left out, or kept without its empty parameter
/// names.
// Declared for the typings; built in `usable_tools`.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct SkippedTool {
    /// Its index in the list given.
    #[napi(readonly)]
    pub index: u32,
    /// Its name, as given.
    #[napi(readonly)]
    pub name: String,
    #[napi(readonly)]
    pub reason: SkippedToolReason,
}

/// What `usableTools` answers.
// Declared for the typings; built in `usable_tools`.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct UsableTools {
    /// The usable tools, in the list's order, ready to pass as
    /// `new ScaffoldingFilter({ tools })`: each the very entry given
    /// (string or object), except that a tool kept without its empty
    /// parameter names is a new `{ name, parameters }`.
    #[napi(readonly, ts_type = "Array<string | ScaffoldTool>")]
    pub tools: (),
    /// What was left out or trimmed, in the list's order: at most one
    /// entry a tool.
    #[napi(readonly)]
    pub skipped: Vec<SkippedTool>,
}

/// Options for `new ScaffoldingFilter(options)`. Every key is optional, and
/// a key set to `undefined` counts as left out; a key that is not one of
/// these is a `TypeError` (a misspelt option would otherwise be ignored
/// without a word).
// Declared for the typings only: the options are read by hand.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ScaffoldingFilterOptions {
    /// What to strip, for example `SCAFFOLD_PRESETS.hermes`, or several
    /// presets' lists joined. Left out: the default patterns
    /// (`SCAFFOLD_PATTERNS`). The leftmost match is stripped, then the next
    /// one after it; at one start the earlier pattern wins; spans end at
    /// their first end. A list of literal spans and tokens that can never
    /// overlap (as the default) runs exactly as the reference filter does,
    /// feed by feed; any other list gives the same output for every
    /// chunking. An empty list, an empty literal or tool name, or a regular
    /// expression the filter cannot run (look-around, back-references, one
    /// that matches the empty string) is a `TypeError` naming the entry. A
    /// `ScaffoldRegistry` is such a list compiled once, to share.
    #[napi(
        readonly,
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall> | ScaffoldRegistry | undefined"
    )]
    pub patterns: Option<()>,
    /// The tools the model was offered, by name or as `{ name, parameters }`.
    /// Given, the filter also strips a leaked call to any of them in
    /// whatever markup it comes: tags, attributes, JSON, pythonic calls,
    /// special tokens and the wrappers around them, including formats no
    /// preset names. Each such strip carries the calls read out of it
    /// (`StripEvent.calls`). Names in any script are read alike. A name
    /// that is empty, longer than 256 UTF-16 code units, holds a line
    /// break or repeats an earlier one, or an empty parameter name, is a
    /// `TypeError` naming the entry: `usableTools(tools)` leaves such tools
    /// out instead, and says which.
    #[napi(readonly, ts_type = "ReadonlyArray<string | ScaffoldTool> | undefined")]
    pub tools: Option<()>,
    /// What `flush()` does with a span still open at the end: `'emit'`
    /// (the default, as the reference filter) returns it as text, `'drop'`
    /// strips it (reason `'unclosed-at-end'`). A partial marker at the end
    /// with no span open is text either way, and so is a JSON call cut off
    /// inside its value before any whole call object closed in it (an
    /// ordinary JSON answer the token limit cut off).
    #[napi(readonly, ts_type = "OpenSpanPolicy | undefined")]
    pub open_span_at_end: Option<()>,
    /// Called once per stripped span, in strip order, synchronously before
    /// the `feed()` or `flush()` that stripped it returns; its return value
    /// is ignored. It may read this filter but not feed or flush it. If it
    /// throws, the strip stands and that call throws the exception; the
    /// next call first announces the remaining strips and returns the text
    /// the failed call did not, in front of its own.
    #[napi(readonly, ts_type = "((event: StripEvent) => void) | undefined")]
    pub on_strip: Option<()>,
    /// The most an open span may hold at the end of a `feed()`, in UTF-16
    /// code units (a positive integer). Past it, the span is settled at
    /// once as `openSpanAtEnd` says (`'emit'`: returned as text; `'drop'`:
    /// stripped, reason `'max-held'`), and the filter carries on with
    /// nothing held: what follows, the span's end marker included, is read
    /// as ordinary text. A span that opens and closes within one chunk is
    /// never held, so it is stripped whatever its length. Left out: no
    /// bound, as the reference filter.
    #[napi(readonly, ts_type = "number | undefined")]
    pub max_held: Option<()>,
    /// Settle the whitespace a strip leaves where it cut: around each cut,
    /// the whitespace on both sides becomes one run (nothing at the start
    /// or end of the text; where either side breaks the line, as many line
    /// breaks as the more of the two, at most one blank line, then the next
    /// line's indentation; otherwise a single run, so `'Let me check.
    /// <…> Done'` becomes `'Let me check. Done'`). Text with no cut beside
    /// it is never touched. Trailing whitespace is held until what follows
    /// it shows. Default `false`: the reference filter's output, spaces and
    /// all.
    #[napi(readonly, ts_type = "boolean | undefined")]
    pub tidy_whitespace: Option<()>,
}

/// Ready-made `patterns` for model families whose tool-call markup leaks
/// into answer text, by name. Frozen, like every list and entry in it.
// Declared for the typings; the value is built from the core's presets in
// `presets_to_js`, and a test holds the two lists of names together.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ScaffoldPresets {
    /// Liquid AI LFM2: the default patterns.
    #[napi(
        readonly,
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub lfm2: (),
    /// The Hermes format (Qwen 2.5 and 3, Hermes), with a stray closer.
    #[napi(
        readonly,
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub hermes: (),
    /// Zhipu GLM 4.5 and later.
    #[napi(
        readonly,
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub glm: (),
    /// Qwen3-Coder's XML calls, wrapped or not, and their stray closers.
    #[napi(
        readonly,
        js_name = "qwen3-coder",
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub qwen3_coder: (),
    /// Meta Llama 3.1 and later: `<|python_tag|>` calls, `<|eom_id|>`, `<|eot_id|>`.
    #[napi(
        readonly,
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub llama3: (),
    /// Meta Llama 4.
    #[napi(
        readonly,
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub llama4: (),
    /// Mistral: `[TOOL_CALLS]` and its JSON, `[TOOL_CALLS]NAME[ARGS]{…}`.
    #[napi(
        readonly,
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub mistral: (),
    /// DeepSeek V3, with its full-width bars; inner calls alone too.
    #[napi(
        readonly,
        js_name = "deepseek-v3",
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub deepseek_v3: (),
    /// DeepSeek V3.2 and V4's DSML blocks.
    #[napi(
        readonly,
        js_name = "deepseek-dsml",
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub deepseek_dsml: (),
    /// Moonshot Kimi K2: the section, inner calls, stray section ends.
    #[napi(
        readonly,
        js_name = "kimi-k2",
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub kimi_k2: (),
    /// Google Gemma 4.
    #[napi(
        readonly,
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub gemma4: (),
    /// MiniMax M2 and later, and the dialects its users report.
    #[napi(
        readonly,
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub minimax: (),
    /// Anthropic-style `<function_calls>` and `<invoke>` XML.
    #[napi(
        readonly,
        js_name = "anthropic-xml",
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub anthropic_xml: (),
    /// OpenAI gpt-oss's harmony calls, with or without their special tokens.
    #[napi(
        readonly,
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub harmony: (),
    /// IBM Granite's `<|tool_call|>[…]` and `<tool_call>` forms.
    #[napi(
        readonly,
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub granite: (),
    /// A bare JSON tool call: `[{ jsonCall: {} }]`.
    #[napi(
        readonly,
        js_name = "json-call",
        ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub json_call: (),
}

/// Ready-made `patterns` for the model families whose tool-call markup is
/// known to leak, for example
/// `new ScaffoldingFilter({ patterns: SCAFFOLD_PRESETS.hermes })`, or all of
/// them: `Object.values(SCAFFOLD_PRESETS).flat()`.
#[napi]

pub const SCAFFOLD_PRESETS: ScaffoldPresets = ScaffoldPresets {
    lfm2: (),
    hermes: (),
    glm: (),
    qwen3_coder: (),
    llama3: (),
    llama4: (),
    mistral: (),
    deepseek_v3: (),
    deepseek_dsml: (),
    kimi_k2: (),
    gemma4: (),
    minimax: (),
    anthropic_xml: (),
    harmony: (),
    granite: (),
    json_call: (),
};

impl ToNapiValue for ScaffoldPresets {
    unsafe fn to_napi_value(env: sys::napi_env, _: Self) -> Result<sys::napi_value> {
        presets_to_js(Js::new(&Env::from_raw(env)))
    }
}

/// `{ [name]: [{ start, end } | { token }, ...] }` from the core's presets,
/// frozen at every level.
fn presets_to_js(js: Js) -> Result<Handle> {
    let mut presets = Vec::with_capacity(scaffolding::PRESETS.len());
    for preset in &scaffolding::PRESETS {
        let name = CString::new(preset.name).expect("preset names have no NUL");
        presets.push((name, frozen_entries(js, preset.patterns)?));
    }
    let properties: Vec<(&CStr, Handle)> =
        presets.iter().map(|(name, list)| (name.as_c_str(), *list)).collect();
    freeze(js, js.object(&properties)?)
}

fn freeze(js: Js, value: Handle) -> Result<Handle> {
    let (object, freeze) = js.builtin(c"Object", c"freeze")?;
    js.call(freeze, object, &[value])
}

/// Preset patterns as a frozen array of frozen pattern entries.
fn frozen_entries(js: Js, patterns: &[PresetPattern]) -> Result<Handle> {
    let regexp = js.global(c"RegExp")?;
    let part = |part: PresetPart| -> Result<Handle> {
        match part {
            PresetPart::Literal(text) => js.str(text),
            PresetPart::Regex(source) => js.construct(regexp, &[js.str(source)?]),
            PresetPart::MultiLine(source) => js.construct(regexp, &[js.str(source)?, js.str("m")?]),
        }
    };
    let mut entries = Vec::with_capacity(patterns.len());
    for pattern in patterns {
        let entry = match *pattern {
            PresetPattern::Span { start, end } => {
                js.object(&[(c"start", js.str(start)?), (c"end", js.str(end)?)])?
            }
            PresetPattern::Token(token) => js.object(&[(c"token", js.str(token)?)])?,
            PresetPattern::Regex(source) => js.object(&[(c"regex", part(PresetPart::Regex(source))?)])?,
            PresetPattern::SpanOf { start, end } => {
                js.object(&[(c"start", part(start)?), (c"end", part(end)?)])?
            }
            PresetPattern::Json(start) => {
                js.object(&[(c"start", part(start)?), (c"json", js.boolean(true)?)])?
            }
            PresetPattern::JsonCall => js.object(&[(c"jsonCall", freeze(js, js.object(&[])?)?)])?,
        };
        entries.push(freeze(js, entry)?);
    }
    freeze(js, js.array(&entries)?)
}

/// Every preset pattern that begins with a special token (`<|…|>`,
/// `<｜…｜>`, `[TOOL_CALLS]`, `]<]minimax[>[`), in preset order, each once:
/// the markup no answer writes on purpose, from every family. Frozen.
/// `scaffoldingMiddleware()` strips it by default.
#[napi]
pub const SCAFFOLD_SPECIAL_TOKENS: SpecialTokens = SpecialTokens;

/// The type of `SCAFFOLD_SPECIAL_TOKENS`.
pub struct SpecialTokens;

impl TypeName for SpecialTokens {
    fn type_name() -> &'static str {
        "SpecialTokens"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for SpecialTokens {
    unsafe fn to_napi_value(env: sys::napi_env, _: Self) -> Result<sys::napi_value> {
        frozen_entries(Js::new(&Env::from_raw(env)), &scaffolding::presets::special_token_patterns())
    }
}
