//! `ScaffoldingFilter`, `SCAFFOLD_PATTERNS` and `SCAFFOLD_PRESETS` for
//! JavaScript.
//!
//! Strings cross as UTF-16 in both directions: napi-rs's `String`
//! conversion would turn lone surrogates into U+FFFD, so the chunk is taken
//! as a raw handle and read as code units, and answers are built from code
//! units. The options are read by hand too, so that every bad value is a
//! JavaScript error naming it (`options.patterns[2].end`).
//!
//! `ScaffoldingFilter` itself is a JavaScript class
//! (lib/scaffolding-filter.cjs) over the functions of the section "native
//! half" below: it keeps what its options compiled to, and the state of a
//! stream lives here, in a `Box` held through a tagged handle, from the
//! feed that needs it to the flush that ends it. `feed` and `finish` hand
//! back an event for each strip (`strip_event`) when the filter has
//! `onStrip`, and the class calls the callback with them.

use std::cell::RefCell;
use std::collections::HashSet;
use std::ffi::{CStr, CString};
use std::num::NonZeroUsize;
use std::sync::Arc;

use super::napi::{Handle, IsArray, Js};
use napi::bindgen_prelude::*;
use napi::{sys, Env, Unknown, ValueType};
use napi_derive::napi;

use crate::filter::{self as scaffolding, Part, Pattern, PresetPart, PresetPattern, RegexSource, Registry};

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
    /// order (a span may hold several, or none when the text ended inside
    /// it under `openSpanAtEnd: 'drop'`).
    #[napi(readonly)]
    pub calls: Option<Vec<LeakedCall>>,
}

/// A tool call read out of leaked markup.
// Declared for the typings; built in `strip_event`.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct LeakedCall {
    /// The offered tool it names.
    #[napi(readonly)]
    pub name: String,
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

/// A pattern list checked and compiled once, to share among filters:
/// `new ScaffoldingFilter({ patterns: registry })`. Compiling costs the
/// most for regular expressions (the union of every preset takes about
/// 10 ms), so a server that builds a filter per response builds its
/// registry once. It holds only the compiled patterns, never any text, and
/// is immutable.
#[napi]
pub struct ScaffoldRegistry {
    registry: Arc<Registry>,
}

#[napi]
impl ScaffoldRegistry {
    /// Checks and compiles `patterns`, with the errors
    /// `new ScaffoldingFilter({ patterns })` would throw.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "patterns: ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub fn new(env: &Env, patterns: Unknown) -> Result<Self> {
        let registry = read_patterns(Js::new(env), patterns.raw(), "ScaffoldRegistry: patterns", "")?;
        Ok(ScaffoldRegistry { registry: Arc::new(registry) })
    }

    /// Whether filters built from it run exactly as the reference filter
    /// does, feed by feed: a list of literal spans and tokens that can never
    /// overlap, as the default. Any other list gives the same output for
    /// every chunking instead.
    #[napi(getter, catch_unwind)]
    pub fn runs_as_reference(&self) -> bool {
        self.registry.is_literal()
    }

    /// How many patterns it holds. (Not `length`: an array has one, and the
    /// typings must tell a registry from a list.)
    #[napi(getter, catch_unwind)]
    pub fn size(&self) -> u32 {
        self.registry.patterns().len() as u32
    }
}

// ---- ScaffoldingFilter's native half ----------------------------------------
//
// `ScaffoldingFilter` is a JavaScript class (lib/scaffolding-filter.cjs) over
// the functions below, which the addon exports under `__scaffoldingFilter`
// and the package does not. A `#[napi]` class instance is a `napi_wrap`, and
// Node frees a wrap's bookkeeping and its native struct only in a finalizer
// it runs after the event loop turns, so a synchronous loop that made a
// filter per text held every one of them until it ended. Here a filter has
// no native object of its own: `settings` checks and compiles its options
// into plain JavaScript values once, when it is made, and a stream's state
// lives in a Rust `Box` only from the feed that needs it to the flush that
// ends it.
//
// JavaScript holds that `Box` through a handle: an 8-byte `ArrayBuffer`,
// type-tagged with `STREAM_TAG`, holding the `Box`'s address (zero once
// closed). No Node-API finalizer is involved: V8 frees the buffer itself.
// Every function checks the handle before it touches the state: the tag
// (no buffer made elsewhere passes), a non-zero address (not closed), and
// that the address is one of this thread's open streams (`STREAMS`; a
// handle's bytes can be written by whoever holds it, so its address alone
// proves nothing). A stream is freed by `finish` (the filter's `flush`), by
// `close` (`[Symbol.dispose]`, or the `FinalizationRegistry` of a filter
// collected with its stream open), or with its thread.
//
// No function here calls JavaScript while it holds a stream: `onStrip` is
// called by the class, with the events `feed` and `finish` hand back.

/// The type tag of a stream handle: 128 random bits that only this addon
/// knows.
const STREAM_TAG: sys::napi_type_tag =
    sys::napi_type_tag { lower: 0x5d2e_9f41_c7a0_3b68, upper: 0xa4f1_0c6e_83d9_27b5 };

/// How many bytes a handle holds: the stream's address, native-endian.
const HANDLE_BYTES: usize = 8;

/// One stream's state, from the feed that opened it to its flush.
struct Stream {
    core: scaffolding::ScaffoldingFilter,
    /// Whether the filter has an `onStrip`: then `feed` and `finish` hand
    /// back an event for each strip.
    reports: bool,
    /// How many strips have been handed back as events.
    reported: usize,
}

impl Stream {
    /// Whether strips were made that are still to be handed back.
    fn has_news(&self) -> bool {
        self.reports && self.reported < self.core.strips().len()
    }

    /// Appends an event for each strip not yet handed back, when the filter
    /// reports strips.
    fn push_events(&mut self, js: Js, items: &mut Vec<Handle>) -> Result<()> {
        if !self.reports {
            return Ok(());
        }
        while let Some(strip) = self.core.strip(self.reported) {
            items.push(strip_event(js, self.core.tools(), strip)?);
            self.reported += 1;
        }
        Ok(())
    }
}

type StreamCell = RefCell<Stream>;

/// This thread's open streams, by address. An address is in it from the
/// moment its `Box` is made until the moment it is freed; whatever is left
/// when the thread ends is freed then, so a worker that ends leaks none.
#[derive(Default)]
struct Streams(HashSet<usize>);

impl Drop for Streams {
    fn drop(&mut self) {
        for address in self.0.drain() {
            // SAFETY: every address in the set came from `Box::into_raw` in
            // `open_stream` and leaves the set before anything else frees it.
            drop(unsafe { Box::from_raw(address as *mut StreamCell) });
        }
    }
}

thread_local! {
    static STREAMS: RefCell<Streams> = RefCell::new(Streams::default());
}

/// Runs `body` over this thread's set of open streams.
fn streams<R>(js: Js, body: impl FnOnce(&mut HashSet<usize>) -> R) -> Result<R> {
    STREAMS
        .try_with(|streams| body(&mut streams.borrow_mut().0))
        .map_err(|_| js.error("ScaffoldingFilter: this thread is ending"))
}

/// The bytes of a stream handle, or a `TypeError` for any other value.
fn handle_bytes(js: Js, handle: Handle, method: &str) -> Result<*mut u8> {
    js.tagged_bytes(handle, &STREAM_TAG, HANDLE_BYTES)?.ok_or_else(|| {
        js.type_error(&format!("ScaffoldingFilter.{method}: the handle is not a filter stream of this addon"))
    })
}

/// The address a handle's bytes hold (zero: closed).
fn read_address(bytes: *mut u8) -> usize {
    // SAFETY: `bytes` is where a live buffer keeps at least HANDLE_BYTES
    // bytes (`tagged_bytes` checked), and no JavaScript, which alone could
    // detach the buffer, runs between that check and this read.
    u64::from_ne_bytes(unsafe { bytes.cast::<[u8; HANDLE_BYTES]>().read_unaligned() }) as usize
}

/// The address of the open stream a handle holds; `None` when it was
/// closed.
fn open_address(js: Js, bytes: *mut u8, method: &str) -> Result<Option<usize>> {
    let address = read_address(bytes);
    if address == 0 {
        return Ok(None);
    }
    if !streams(js, |open| open.contains(&address))? {
        return Err(js.type_error(&format!(
            "ScaffoldingFilter.{method}: the handle does not hold an open stream of this thread"
        )));
    }
    Ok(Some(address))
}

/// A new stream's handle.
fn open_stream(js: Js, stream: Stream) -> Result<Handle> {
    let address = Box::into_raw(Box::new(RefCell::new(stream))) as usize;
    let handle = streams(js, |open| open.insert(address))
        .and_then(|_| js.tagged_buffer(&STREAM_TAG, &(address as u64).to_ne_bytes()));
    if handle.is_err() {
        let _ = streams(js, |open| open.remove(&address));
        // SAFETY: made by `Box::into_raw` above; no handle holds it, and it
        // is out of STREAMS.
        drop(unsafe { Box::from_raw(address as *mut StreamCell) });
    }
    handle
}

/// Runs `body` with the open stream a handle holds.
fn with_stream<R>(
    js: Js,
    handle: Handle,
    method: &str,
    body: impl FnOnce(&mut Stream) -> Result<R>,
) -> Result<R> {
    let bytes = handle_bytes(js, handle, method)?;
    let Some(address) = open_address(js, bytes, method)? else {
        return Err(js.type_error(&format!("ScaffoldingFilter.{method}: the stream is closed")));
    };
    // SAFETY: the address is in STREAMS, so it is a `Box` from `open_stream`
    // on this thread that has not been freed. Nothing frees it while this
    // borrow lives: only `take_stream` takes a stream out of STREAMS, and it
    // refuses one that is borrowed; the rest are freed when this thread
    // ends, which it cannot do in the middle of this call.
    let cell = unsafe { &*(address as *const StreamCell) };
    let mut stream = cell
        .try_borrow_mut()
        .map_err(|_| js.error(&format!("ScaffoldingFilter.{method}: the stream is in use")))?;
    body(&mut stream)
}

/// Takes the open stream out of a handle, leaving the handle closed;
/// `None` when it was closed already.
fn take_stream(js: Js, handle: Handle, method: &str) -> Result<Option<Box<StreamCell>>> {
    let bytes = handle_bytes(js, handle, method)?;
    let Some(address) = open_address(js, bytes, method)? else { return Ok(None) };
    // SAFETY: as in `with_stream`: the address is a live `Box` of this thread.
    if unsafe { &*(address as *const StreamCell) }.try_borrow_mut().is_err() {
        return Err(js.error(&format!("ScaffoldingFilter.{method}: the stream is in use")));
    }
    streams(js, |open| open.remove(&address))?;
    // SAFETY: `bytes` as in `read_address`.
    unsafe { bytes.cast::<[u8; HANDLE_BYTES]>().write_unaligned(0u64.to_ne_bytes()) };
    // SAFETY: the address was a live `Box` in STREAMS and is no longer in
    // it, and the handle no longer holds it: this is its only owner.
    Ok(Some(unsafe { Box::from_raw(address as *mut StreamCell) }))
}

/// What a filter keeps of its options: `[settings, startUnits, onStrip]`.
/// `settings` are the options as `open` reads them back (`undefined` for
/// the defaults), checked and compiled: only what differs from the
/// defaults, the patterns as a `ScaffoldRegistry` (the one given, or one
/// compiled from the list), the tools as checked. Bad options throw here,
/// with the errors `new ScaffoldingFilter(options)` throws.
#[napi(namespace = "__scaffoldingFilter", js_name = "settings", skip_typescript, catch_unwind)]
pub fn filter_settings<'env>(env: &'env Env, options: Unknown<'env>) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let settings = read_options(js, options.raw())?;
    // `null` when no set of units decides (tool-aware detection, a tidy
    // filter): then every chunk goes to the core.
    let with_tools = settings.tools.as_ref().is_some_and(|list| !list.is_empty());
    let units =
        scaffolding::ScaffoldingFilter::start_units_of(&settings.registry, settings.options, with_tools);
    let start_units = match units {
        Some(units) => js.string(&units)?,
        None => js.null()?,
    };
    let on_strip = match settings.on_strip {
        Some(on_strip) => on_strip,
        None => js.undefined()?,
    };
    let settings = settings_to_js(js, env, settings)?;
    Ok(js.unknown(js.array(&[settings, start_units, on_strip])?))
}

/// `Settings` as options that `read_options` reads back into the same
/// settings; `undefined` for the defaults.
fn settings_to_js(js: Js, env: &Env, settings: Settings) -> Result<Handle> {
    // Every field named, so that an option added to `Settings` or to the
    // core's `Options` cannot be left out of this without a compile error.
    let Settings { registry, given_registry, options, tools, on_strip } = settings;
    let scaffolding::Options { open_span_at_end, max_held, tidy_whitespace } = options;
    let mut fields: Vec<(&CStr, Handle)> = Vec::new();
    if !Arc::ptr_eq(&registry, &Registry::of_defaults()) {
        let patterns = match given_registry {
            Some(given) => given,
            None => ScaffoldRegistry { registry }.into_instance(env)?.value,
        };
        fields.push((c"patterns", patterns));
    }
    if let Some(tools) = tools {
        let list = tools.iter().map(|tool| tool_to_js(js, tool)).collect::<Result<Vec<_>>>()?;
        fields.push((c"tools", js.array(&list)?));
    }
    match open_span_at_end {
        scaffolding::OpenSpanPolicy::Emit => {}
        scaffolding::OpenSpanPolicy::Drop => fields.push((c"openSpanAtEnd", js.str("drop")?)),
    }
    if let Some(on_strip) = on_strip {
        fields.push((c"onStrip", on_strip));
    }
    if let Some(most) = max_held {
        fields.push((c"maxHeld", js.number(most.get() as f64)?));
    }
    if tidy_whitespace {
        fields.push((c"tidyWhitespace", js.boolean(true)?));
    }
    if fields.is_empty() {
        return js.undefined();
    }
    js.object(&fields)
}

/// A new stream for `settings` (what `settings` made), as its handle.
#[napi(namespace = "__scaffoldingFilter", js_name = "open", skip_typescript, catch_unwind)]
pub fn stream_open<'env>(env: &'env Env, settings: Unknown<'env>) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let settings = read_options(js, settings.raw())?;
    let (core, on_strip) = settings.into_filter(js)?;
    let stream = Stream { core, reports: on_strip.is_some(), reported: 0 };
    Ok(js.unknown(open_stream(js, stream)?))
}

/// Feeds a chunk to a stream. Returns the text to show, or, when the
/// filter has `onStrip` and the chunk made strips,
/// `[text, ...events]`. The chunk is checked first, so a chunk that is not
/// a string is named whatever the handle is.
#[napi(namespace = "__scaffoldingFilter", js_name = "feed", skip_typescript, catch_unwind)]
pub fn stream_feed<'env>(
    env: &'env Env,
    handle: Unknown<'env>,
    chunk: Unknown<'env>,
) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let chunk = chunk.raw();
    if js.type_of(chunk)? != ValueType::String {
        return Err(js.wrong_type("ScaffoldingFilter.feed: chunk", "a string", chunk));
    }
    let answer = with_stream(js, handle.raw(), "feed", |stream| {
        let core = &mut stream.core;
        let text = js.with_units(chunk, |units| {
            // When the answer is the chunk, unit for unit, the chunk itself
            // is the answer. (Compared, not inferred from lengths: a tidy
            // filter can release held whitespace and hold as much back.)
            core.feed_with(units, |emitted| if emitted == units { Ok(chunk) } else { js.string(emitted) })
        })?;
        if !stream.has_news() {
            return Ok(text);
        }
        let mut items = vec![text];
        stream.push_events(js, &mut items)?;
        js.array(&items)
    })?;
    Ok(js.unknown(answer))
}

/// Ends a stream and frees it: returns the held tail, or, when the stream
/// stripped anything, `[tail, spans, ...events]`: every span it stripped,
/// and, when the filter has `onStrip`, an event for each strip not yet
/// handed back.
#[napi(namespace = "__scaffoldingFilter", js_name = "finish", skip_typescript, catch_unwind)]
pub fn stream_finish<'env>(env: &'env Env, handle: Unknown<'env>) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let Some(mut stream) = take_stream(js, handle.raw(), "flush")? else {
        return Err(js.type_error("ScaffoldingFilter.flush: the stream is closed"));
    };
    let stream = stream.get_mut();
    let tail = js.string(&stream.core.flush())?;
    if stream.core.strips().len() == 0 {
        return Ok(js.unknown(tail));
    }
    let spans = stream.core.stripped_spans().map(|span| js.string(span)).collect::<Result<Vec<_>>>()?;
    let mut items = vec![tail, js.array(&spans)?];
    stream.push_events(js, &mut items)?;
    Ok(js.unknown(js.array(&items)?))
}

/// Frees a stream without flushing it. A closed handle is left as it is.
#[napi(namespace = "__scaffoldingFilter", js_name = "close", skip_typescript, catch_unwind)]
pub fn stream_close(env: &Env, handle: Unknown) -> Result<()> {
    drop(take_stream(Js::new(env), handle.raw(), "close")?);
    Ok(())
}

/// Whether a stream holds nothing: no partial marker, no open span, no
/// whitespace a tidy filter holds beside a cut.
#[napi(namespace = "__scaffoldingFilter", js_name = "idle", skip_typescript, catch_unwind)]
pub fn stream_idle(env: &Env, handle: Unknown) -> Result<bool> {
    with_stream(Js::new(env), handle.raw(), "idle", |stream| Ok(stream.core.is_idle()))
}

/// Total `.length` of the spans a stream stripped.
#[napi(namespace = "__scaffoldingFilter", js_name = "strippedChars", skip_typescript, catch_unwind)]
pub fn stream_stripped_chars(env: &Env, handle: Unknown) -> Result<f64> {
    with_stream(Js::new(env), handle.raw(), "strippedChars", |stream| Ok(stream.core.stripped_chars() as f64))
}

/// The spans a stream stripped, in order, as a new array.
#[napi(namespace = "__scaffoldingFilter", js_name = "strippedSpans", skip_typescript, catch_unwind)]
pub fn stream_stripped_spans<'env>(env: &'env Env, handle: Unknown<'env>) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let spans = with_stream(js, handle.raw(), "strippedSpans", |stream| {
        let spans = stream.core.stripped_spans().map(|span| js.string(span)).collect::<Result<Vec<_>>>()?;
        js.array(&spans)
    })?;
    Ok(js.unknown(spans))
}

/// How many streams are open on this thread: for tests, which check that
/// a flush, a dispose and the collection of a filter free its stream.
#[napi(namespace = "__scaffoldingFilter", js_name = "openStreams", skip_typescript, catch_unwind)]
pub fn open_streams(env: &Env) -> Result<u32> {
    streams(Js::new(env), |open| open.len() as u32)
}

/// `ScaffoldingFilter.strip(text, options)`: a whole text at once, the
/// answer a filter fed `text` and then flushed would give, with `onStrip`
/// called for each stripped span, in order, before it returns. No stream is
/// made and nothing is kept once it returns. Throws a `TypeError` when
/// `text` is not a string, and the filter's own errors for bad options; if
/// `onStrip` throws, so does this, and the text is not returned.
#[napi(namespace = "__scaffoldingFilter", js_name = "strip", skip_typescript, catch_unwind)]
pub fn filter_strip<'env>(
    env: &'env Env,
    text: Unknown<'env>,
    options: Unknown<'env>,
) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let text = text.raw();
    if js.type_of(text)? != ValueType::String {
        return Err(js.wrong_type("ScaffoldingFilter.strip: text", "a string", text));
    }
    let (mut core, on_strip) = read_options(js, options.raw())?.into_filter(js)?;
    // A feed that emits the text unit for unit held nothing back, and the
    // text is its own answer.
    let (mut out, whole) = js.with_units(text, |units| {
        Ok(core.feed_with(units, |emitted| {
            if emitted == units {
                (Vec::new(), true)
            } else {
                (emitted.to_vec(), false)
            }
        }))
    })?;
    out.extend_from_slice(&core.flush());
    if let Some(on_strip) = on_strip {
        let this = js.undefined()?;
        for strip in core.strips() {
            js.call(on_strip, this, &[strip_event(js, core.tools(), strip)?])?;
        }
    }
    if whole {
        return Ok(js.unknown(text));
    }
    Ok(js.unknown(js.string(&out)?))
}

/// `{ span, reason, pattern }`, and `calls` for a strip that tool-aware
/// detection made (its `pattern` is -1).
fn strip_event(js: Js, tools: Option<&scaffolding::Tools>, strip: scaffolding::Strip<'_>) -> Result<Handle> {
    let span = js.string(strip.span)?;
    let reason = js.str(strip.reason.as_str())?;
    let (Some(tools), scaffolding::TOOLS) = (tools, strip.pattern) else {
        return js.object(&[
            (c"span", span),
            (c"reason", reason),
            (c"pattern", js.number(strip.pattern as f64)?),
        ]);
    };
    let calls = strip
        .calls
        .iter()
        .map(|call| {
            let name = js.string(&tools.list()[call.tool].name)?;
            match &call.input {
                Ok(input) => js.object(&[(c"name", name), (c"input", json_value(js, input)?)]),
                Err(raw) => js.object(&[(c"name", name), (c"rawInput", js.string(raw)?)]),
            }
        })
        .collect::<Result<Vec<_>>>()?;
    js.object(&[
        (c"span", span),
        (c"reason", reason),
        (c"pattern", js.number(-1.0)?),
        (c"calls", js.array(&calls)?),
    ])
}

/// A JSON value as a JavaScript one (numbers as doubles, as `JSON.parse`
/// makes them). The depth is bounded by the parser that made the value.
fn json_value(js: Js, value: &serde_json::Value) -> Result<Handle> {
    use serde_json::Value;
    match value {
        Value::Null => js.null(),
        Value::Bool(flag) => js.boolean(*flag),
        Value::Number(number) => js.number(number.as_f64().unwrap_or(f64::NAN)),
        Value::String(text) => js.str(text),
        Value::Array(items) => {
            let items = items.iter().map(|item| json_value(js, item)).collect::<Result<Vec<_>>>()?;
            js.array(&items)
        }
        Value::Object(fields) => {
            let object = js.object(&[])?;
            for (key, item) in fields {
                js.define(object, js.str(key)?, json_value(js, item)?)?;
            }
            Ok(object)
        }
    }
}

/// The options as the core takes them.
struct Settings {
    registry: Arc<Registry>,
    /// The `ScaffoldRegistry` that `options.patterns` was, when it was one:
    /// `registry` is its own.
    given_registry: Option<Handle>,
    options: scaffolding::Options,
    /// Checked (`Tools::check`), compiled only for a filter: a filter's
    /// options are read once when it is made, and again at every stream.
    tools: Option<Vec<scaffolding::Tool>>,
    on_strip: Option<Handle>,
}

impl Settings {
    /// A filter for these settings, and the callback they name.
    fn into_filter(self, js: Js) -> Result<(scaffolding::ScaffoldingFilter, Option<Handle>)> {
        let tools =
            self.tools.map(scaffolding::Tools::new).transpose().map_err(|error| tools_error(js, &error))?;
        let filter =
            scaffolding::ScaffoldingFilter::with_tools(self.registry, self.options, tools.map(Arc::new));
        Ok((filter, self.on_strip))
    }
}

/// A bad tool list as `new ScaffoldingFilter` names it.
fn tools_error(js: Js, error: &scaffolding::ToolsError) -> Error {
    js.type_error(&format!("ScaffoldingFilter: options.tools[{}]: {}", error.tool, error.reason))
}

const OPTION_NAMES: [&str; 6] =
    ["patterns", "tools", "openSpanAtEnd", "onStrip", "maxHeld", "tidyWhitespace"];

/// Reads `new ScaffoldingFilter(options)`'s argument, naming the first bad
/// value in a JavaScript error.
fn read_options(js: Js, options: Handle) -> Result<Settings> {
    let mut settings = Settings {
        registry: Registry::of_defaults(),
        given_registry: None,
        options: scaffolding::Options::default(),
        tools: None,
        on_strip: None,
    };
    match js.type_of(options)? {
        ValueType::Undefined => return Ok(settings),
        ValueType::Object if IsArray::new(js).test(options)? => {
            return Err(js.type_error("ScaffoldingFilter: options must be an object (got an array)"))
        }
        ValueType::Object => {}
        _ => return Err(js.wrong_type("ScaffoldingFilter: options", "an object", options)),
    }
    for key in js.own_keys(options)? {
        let key = String::from_utf16_lossy(&key);
        if !OPTION_NAMES.contains(&key.as_str()) {
            return Err(js.type_error(&format!(
                "ScaffoldingFilter: options.{} is not an option (the options are {})",
                clip(&key),
                OPTION_NAMES.join(", ")
            )));
        }
    }
    let given = |value: Handle| -> Result<bool> { Ok(js.type_of(value)? != ValueType::Undefined) };

    let patterns = js.get(options, c"patterns")?;
    if given(patterns)? {
        settings.registry = match compiled_registry(js, patterns)? {
            Some(registry) => {
                settings.given_registry = Some(patterns);
                registry
            }
            None => Arc::new(read_patterns(
                js,
                patterns,
                "ScaffoldingFilter: options.patterns",
                " (leave it out for the default patterns)",
            )?),
        };
    }

    let tools = js.get(options, c"tools")?;
    if given(tools)? {
        settings.tools = Some(read_tools(js, tools)?);
    }

    let policy = js.get(options, c"openSpanAtEnd")?;
    if given(policy)? {
        let what = "ScaffoldingFilter: options.openSpanAtEnd";
        if js.type_of(policy)? != ValueType::String {
            return Err(js.wrong_type(what, "'emit' or 'drop'", policy));
        }
        settings.options.open_span_at_end = match String::from_utf16_lossy(&js.utf16(policy)?).as_str() {
            "emit" => scaffolding::OpenSpanPolicy::Emit,
            "drop" => scaffolding::OpenSpanPolicy::Drop,
            other => {
                return Err(js.type_error(&format!("{what} must be 'emit' or 'drop' (got '{}')", clip(other))))
            }
        };
    }

    let on_strip = js.get(options, c"onStrip")?;
    if given(on_strip)? {
        if js.type_of(on_strip)? != ValueType::Function {
            return Err(js.wrong_type("ScaffoldingFilter: options.onStrip", "a function", on_strip));
        }
        settings.on_strip = Some(on_strip);
    }

    let tidy = js.get(options, c"tidyWhitespace")?;
    if given(tidy)? {
        if js.type_of(tidy)? != ValueType::Boolean {
            return Err(js.wrong_type("ScaffoldingFilter: options.tidyWhitespace", "a boolean", tidy));
        }
        settings.options.tidy_whitespace = js.bool(tidy)?;
    }

    let max_held = js.get(options, c"maxHeld")?;
    if given(max_held)? {
        let what = "ScaffoldingFilter: options.maxHeld";
        if js.type_of(max_held)? != ValueType::Number {
            return Err(js.wrong_type(what, "a positive integer", max_held));
        }
        let most = js.f64(max_held)?;
        if !(most.is_finite() && most >= 1.0 && most.fract() == 0.0) {
            return Err(
                js.range_error(&format!("{what} must be a positive integer (got {})", js_number(most)))
            );
        }
        // Past usize::MAX (on a 32-bit machine) the bound is as good as none.
        settings.options.max_held = NonZeroUsize::new(most.min(usize::MAX as f64) as usize);
    }
    Ok(settings)
}

const PATTERN_FIELDS: [&str; 6] = ["token", "regex", "start", "end", "json", "jsonCall"];

/// The registry of a `ScaffoldRegistry` given as `patterns`, shared.
fn compiled_registry(js: Js, value: Handle) -> Result<Option<Arc<Registry>>> {
    let env = js.env();
    if !ScaffoldRegistry::instance_of(&env, &js.unknown(value))? {
        return Ok(None);
    }
    // SAFETY: `value` is a live handle of this call's scope; the conversion
    // checks napi-rs's own type tag before it reads the native object.
    let instance = unsafe { ClassInstance::<ScaffoldRegistry>::from_napi_value(env.raw(), value) }.map_err(|_| {
        js.type_error(
            "ScaffoldingFilter: options.patterns claims to be a ScaffoldRegistry but was not made by its constructor",
        )
    })?;
    Ok(Some(Arc::clone(&instance.registry)))
}

/// A tool as `options.tools` takes it: its name, or `{ name, parameters }`.
fn tool_to_js(js: Js, tool: &scaffolding::Tool) -> Result<Handle> {
    match &tool.parameters {
        None => js.string(&tool.name),
        Some(parameters) => {
            let names = parameters.iter().map(|name| js.string(name)).collect::<Result<Vec<_>>>()?;
            js.object(&[(c"name", js.string(&tool.name)?), (c"parameters", js.array(&names)?)])
        }
    }
}

/// The tools of `tools` that tool-aware detection can use, and what it
/// leaves out: lenient where `new ScaffoldingFilter({ tools })` is strict,
/// for a list from elsewhere (an MCP server, a framework's tool list).
/// `tools` has the shape of `ScaffoldingFilterOptions.tools`, and so has
/// the `tools` of the answer. A tool whose name is empty, longer than 256
/// UTF-16 code units or holds a line break is left out, and so is a tool
/// with the name of an earlier one (the first is kept); a tool with an
/// empty parameter name is kept without it. Each is reported once in
/// `skipped`. A name in any script is usable. A list the filter would take
/// comes back whole, its entries the very values given, with nothing
/// skipped. Throws a `TypeError` naming the argument or the entry when
/// `tools` is not such a list (an entry that is neither a string nor a
/// `{ name, parameters? }` object, a name or parameter that is no string).
#[napi(
    catch_unwind,
    ts_args_type = "tools: ReadonlyArray<string | ScaffoldTool>",
    ts_return_type = "UsableTools"
)]
pub fn usable_tools<'env>(env: &'env Env, tools: Unknown<'env>) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let (tools, entries) = read_tool_list(js, tools.raw(), "usableTools: tools")?;
    let usable = scaffolding::usable_tools(tools);
    let mut trimmed = usable
        .skipped
        .iter()
        .filter(|skipped| !skipped.reason.drops_tool())
        .map(|skipped| skipped.index)
        .peekable();
    let mut kept = Vec::with_capacity(usable.tools.len());
    for (tool, &index) in usable.tools.iter().zip(&usable.from) {
        kept.push(match trimmed.next_if_eq(&index) {
            Some(_) => tool_to_js(js, tool)?,
            None => entries[index],
        });
    }
    let skipped = usable
        .skipped
        .iter()
        .map(|skipped| {
            js.object(&[
                (c"index", js.number(skipped.index as f64)?),
                (c"name", js.string(&skipped.name)?),
                (c"reason", js.str(skipped.reason.as_str())?),
            ])
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(js.unknown(js.object(&[(c"tools", js.array(&kept)?), (c"skipped", js.array(&skipped)?)])?))
}

/// `options.tools`: an array of names, or of `{ name, parameters? }` with
/// `parameters` an array of names, each usable (`Tools::check`).
fn read_tools(js: Js, list: Handle) -> Result<Vec<scaffolding::Tool>> {
    let (tools, _) = read_tool_list(js, list, "ScaffoldingFilter: options.tools")?;
    scaffolding::Tools::check(&tools).map_err(|error| tools_error(js, &error))?;
    Ok(tools)
}

/// A tool list as `options.tools` takes it, whatever its names, and the
/// entries it was read from; `what` names the list in errors.
fn read_tool_list(js: Js, list: Handle, what: &str) -> Result<(Vec<scaffolding::Tool>, Vec<Handle>)> {
    let shapes = "an array of tool names or { name, parameters? } objects";
    let mut is_array = IsArray::new(js);
    if !is_array.test(list)? {
        return Err(js.wrong_type(what, shapes, list));
    }
    let count = is_array.len(list)?;
    let mut tools = Vec::with_capacity(count);
    let mut entries = Vec::with_capacity(count);
    for index in 0..count {
        let entry = js.element(list, index as u32)?;
        // (Named only for an error: a list is read at every stream open.)
        let at = || format!("{what}[{index}]");
        let tool = match js.type_of(entry)? {
            ValueType::String => scaffolding::Tool { name: js.utf16(entry)?, parameters: None },
            ValueType::Object if !is_array.test(entry)? => {
                for key in js.own_keys(entry)? {
                    let key = String::from_utf16_lossy(&key);
                    if key != "name" && key != "parameters" {
                        return Err(js.type_error(&format!(
                            "{}.{} is not a tool field (the fields are name, parameters)",
                            at(),
                            clip(&key)
                        )));
                    }
                }
                let name = js.get(entry, c"name")?;
                if js.type_of(name)? != ValueType::String {
                    return Err(js.wrong_type(&format!("{}.name", at()), "a string", name));
                }
                let parameters = js.get(entry, c"parameters")?;
                let parameters = match js.type_of(parameters)? {
                    ValueType::Undefined => None,
                    _ if is_array.test(parameters)? => {
                        let mut names = Vec::new();
                        for p in 0..is_array.len(parameters)? {
                            let parameter = js.element(parameters, p as u32)?;
                            if js.type_of(parameter)? != ValueType::String {
                                return Err(js.wrong_type(
                                    &format!("{}.parameters[{p}]", at()),
                                    "a string",
                                    parameter,
                                ));
                            }
                            names.push(js.utf16(parameter)?);
                        }
                        Some(names)
                    }
                    _ => {
                        return Err(js.wrong_type(
                            &format!("{}.parameters", at()),
                            "an array of parameter names",
                            parameters,
                        ))
                    }
                };
                scaffolding::Tool { name: js.utf16(name)?, parameters }
            }
            _ => return Err(js.wrong_type(&at(), "a tool name or a { name, parameters? } object", entry)),
        };
        tools.push(tool);
        entries.push(entry);
    }
    Ok((tools, entries))
}

/// A non-empty array of pattern entries that together make a registry;
/// `what` names the array in errors, and `if_empty` is advice for an empty
/// one.
fn read_patterns(js: Js, list: Handle, what: &str, if_empty: &str) -> Result<Registry> {
    let mut is_array = IsArray::new(js);
    if !is_array.test(list)? {
        return Err(js.wrong_type(what, "an array of pattern entries", list));
    }
    let count = is_array.len(list)?;
    if count == 0 {
        return Err(js.type_error(&format!("{what} is empty, so the filter would strip nothing{if_empty}")));
    }
    let regexp = js.global(c"RegExp")?;
    let mut patterns = Vec::with_capacity(count);
    for index in 0..count {
        let entry = js.element(list, index as u32)?;
        patterns.push(read_pattern(js, &mut is_array, regexp, entry, &format!("{what}[{index}]"))?);
    }
    Registry::new(patterns)
        .map_err(|error| js.type_error(&format!("{what}[{}] cannot be used: {}", error.entry, error.reason)))
}

/// One entry: `{ token }`, `{ regex }`, `{ start, end }`, `{ start, json:
/// true }` or `{ jsonCall }`.
fn read_pattern(
    js: Js,
    is_array: &mut IsArray,
    regexp: Handle,
    entry: Handle,
    what: &str,
) -> Result<Pattern> {
    let shapes = "{ token }, { regex }, { start, end }, { start, json: true } or { jsonCall }";
    if js.type_of(entry)? != ValueType::Object || is_array.test(entry)? || js.instance_of(entry, regexp)? {
        return Err(js.wrong_type(what, &format!("a pattern entry ({shapes})"), entry));
    }
    for key in js.own_keys(entry)? {
        let key = String::from_utf16_lossy(&key);
        if !PATTERN_FIELDS.contains(&key.as_str()) {
            return Err(js.type_error(&format!(
                "{what}.{} is not a pattern field (the fields are {})",
                clip(&key),
                PATTERN_FIELDS.join(", ")
            )));
        }
    }
    // A string is a literal, except for `regex`, where it is a source.
    let part = |name: &CStr, field: &str| -> Result<Option<Part>> {
        let value = js.get(entry, name)?;
        match js.type_of(value)? {
            ValueType::Undefined => Ok(None),
            ValueType::String if field == "regex" => {
                Ok(Some(Part::Regex(RegexSource::new(&String::from_utf16_lossy(&js.utf16(value)?)))))
            }
            ValueType::String => Ok(Some(Part::Literal(js.utf16(value)?))),
            ValueType::Object if js.instance_of(value, regexp)? => {
                let text = |name: &CStr| -> Result<String> {
                    Ok(String::from_utf16_lossy(&js.utf16(js.get(value, name)?)?))
                };
                let regex = RegexSource::with_js_flags(&text(c"source")?, &text(c"flags")?)
                    .map_err(|reason| js.type_error(&format!("{what}.{field}: {reason}")))?;
                Ok(Some(Part::Regex(regex)))
            }
            _ => Err(js.wrong_type(&format!("{what}.{field}"), "a string or a RegExp", value)),
        }
    };
    let token = part(c"token", "token")?;
    let regex = part(c"regex", "regex")?;
    let start = part(c"start", "start")?;
    let end = part(c"end", "end")?;
    let json = js.get(entry, c"json")?;
    let json = match js.type_of(json)? {
        ValueType::Undefined => false,
        ValueType::Boolean if js.bool(json)? => true,
        _ => return Err(js.wrong_type(&format!("{what}.json"), "true", json)),
    };
    let json_call = js.get(entry, c"jsonCall")?;
    let json_call = match js.type_of(json_call)? {
        ValueType::Undefined => None,
        ValueType::Object if !is_array.test(json_call)? => {
            Some(read_json_call(js, is_array, json_call, what)?)
        }
        _ => {
            return Err(js.wrong_type(
                &format!("{what}.jsonCall"),
                "an object ({} or { toolNames })",
                json_call,
            ))
        }
    };
    let given: Vec<&str> = [
        ("token", token.is_some()),
        ("regex", regex.is_some()),
        ("start", start.is_some()),
        ("end", end.is_some()),
        ("json", json),
        ("jsonCall", json_call.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, is)| is.then_some(name))
    .collect();
    Ok(match (token, regex, start, end, json, json_call) {
        (Some(token), None, None, None, false, None) => Pattern::token_of(token),
        (None, Some(Part::Regex(regex)), None, None, false, None) => Pattern::Regex { regex },
        (None, None, Some(start), Some(end), false, None) => Pattern::span_of(start, end),
        (None, None, Some(start), None, true, None) => Pattern::Json { start },
        (None, None, None, None, false, Some(tool_names)) => Pattern::JsonCall { tool_names },
        (None, None, Some(_), None, false, None) => {
            return Err(js.type_error(&format!("{what} has a start but no end (or json: true)")))
        }
        (None, None, None, Some(_), false, None) => {
            return Err(js.type_error(&format!("{what} has an end but no start")))
        }
        _ if given.is_empty() => {
            return Err(
                js.type_error(&format!("{what} must be one of {shapes} (it has none of their fields)"))
            )
        }
        _ => {
            return Err(
                js.type_error(&format!("{what} must be one of {shapes} (it has {})", given.join(", ")))
            )
        }
    })
}

/// `jsonCall`'s options: `{}` or `{ toolNames: [...] }`.
fn read_json_call(
    js: Js,
    is_array: &mut IsArray,
    options: Handle,
    what: &str,
) -> Result<Option<Vec<String>>> {
    for key in js.own_keys(options)? {
        let key = String::from_utf16_lossy(&key);
        if key != "toolNames" {
            return Err(js.type_error(&format!(
                "{what}.jsonCall.{} is not an option (the option is toolNames)",
                clip(&key)
            )));
        }
    }
    let names = js.get(options, c"toolNames")?;
    if js.type_of(names)? == ValueType::Undefined {
        return Ok(None);
    }
    let field = format!("{what}.jsonCall.toolNames");
    if !is_array.test(names)? {
        return Err(js.wrong_type(&field, "an array of strings", names));
    }
    let count = is_array.len(names)?;
    let mut tool_names = Vec::with_capacity(count);
    for index in 0..count {
        let name = js.element(names, index as u32)?;
        if js.type_of(name)? != ValueType::String {
            return Err(js.wrong_type(&format!("{field}[{index}]"), "a string", name));
        }
        tool_names.push(String::from_utf16_lossy(&js.utf16(name)?));
    }
    Ok(Some(tool_names))
}

/// At most 40 characters of a user's string, for an error message.
fn clip(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// A number as JavaScript writes it, for the cases an error can show.
fn js_number(value: f64) -> String {
    match value {
        f64::INFINITY => "Infinity".into(),
        f64::NEG_INFINITY => "-Infinity".into(),
        _ if value.is_nan() => "NaN".into(),
        _ => format!("{value}"),
    }
}
