//! `ScaffoldingFilter`, `SCAFFOLD_PATTERNS` and `SCAFFOLD_PRESETS` for
//! JavaScript.
//!
//! Strings cross as UTF-16 in both directions: napi-rs's `String`
//! conversion would turn lone surrogates into U+FFFD, so the chunk is taken
//! as a raw handle and read as code units, and answers are built from code
//! units. The options are read by hand too, so that every bad value is a
//! JavaScript error naming it (`options.patterns[2].end`).
//!
//! `onStrip` runs after the core's pass over a chunk, once per strip the
//! core recorded, before `feed` or `flush` returns. By then the filter's
//! state is whole, so the callback may read the filter's counters; it may
//! not feed or flush the same filter. When it throws, the call throws that
//! exception, and what the call owed is owed by the next call: the strips
//! not yet announced are announced first, and the text not returned comes
//! out in front of that call's own.

use std::cell::{Cell, RefCell, RefMut};
use std::ffi::{CStr, CString};
use std::num::NonZeroUsize;
use std::sync::Arc;

use super::js::{Handle, IsArray, Js};
use napi::bindgen_prelude::*;
use napi::{sys, Env, JsString, Property, PropertyAttributes, Unknown, ValueType};
use napi_derive::napi;

use crate::scaffolding::{self, Part, Pattern, PresetPart, PresetPattern, RegexSource, Registry};

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
    /// (`StripEvent.calls`). An empty or repeated name is a `TypeError`.
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
            PresetPattern::Span { start, end } => js.object(&[(c"start", js.str(start)?), (c"end", js.str(end)?)])?,
            PresetPattern::Token(token) => js.object(&[(c"token", js.str(token)?)])?,
            PresetPattern::Regex(source) => js.object(&[(c"regex", part(PresetPart::Regex(source))?)])?,
            PresetPattern::SpanOf { start, end } => js.object(&[(c"start", part(start)?), (c"end", part(end)?)])?,
            PresetPattern::Json(start) => js.object(&[(c"start", part(start)?), (c"json", js.boolean(true)?)])?,
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

/// Strips a chat model's leaked tool-call markup from streamed answer text,
/// chunk by chunk, holding back only what could still become markup.
///
/// Feed each `delta.content` to `feed()` and show what it returns; call
/// `flush()` when the stream ends. With no options, the output for every
/// chunking is the reference filter's. Lengths are UTF-16 code units, and
/// the text is never decoded: lone surrogates pass through, and a pair split
/// across chunks comes out whole once the outputs are joined.
#[napi]
pub struct ScaffoldingFilter {
    state: RefCell<State>,
    /// Whether `onStrip` was given. The callback itself is kept on the
    /// filter's own object (see [`ON_STRIP_KEY`]), not here.
    has_on_strip: bool,
    /// How many strips `onStrip` has been called for.
    announced: Cell<usize>,
    /// Set while `onStrip` runs.
    announcing: Cell<bool>,
}

/// The `Symbol.for` key under which a filter's object holds its `onStrip`
/// callback, as a property that is neither enumerable, writable nor
/// configurable. Held there, the callback and a filter it refers to form a
/// cycle that the garbage collector sees whole; held by a native reference,
/// the callback would be a root that keeps its filter alive for ever.
const ON_STRIP_KEY: &str = "seamguard.onStrip";

struct State {
    core: scaffolding::ScaffoldingFilter,
    /// With `onStrip`: the text the current call returns, built up before
    /// the strips are announced, and kept for the next call if the callback
    /// throws.
    owed: Vec<u16>,
}

#[napi]
impl ScaffoldingFilter {
    /// A filter for the default patterns (`SCAFFOLD_PATTERNS`) with the
    /// reference filter's behaviour, or for the given options. Bad options
    /// are a `TypeError` (a `RangeError` for a `maxHeld` that is not a
    /// positive integer) naming the option, and the entry for a pattern.
    #[napi(constructor, catch_unwind, ts_args_type = "options?: ScaffoldingFilterOptions")]
    pub fn new(env: &Env, mut this: This, options: Unknown) -> Result<Self> {
        let js = Js::new(env);
        let settings = read_options(js, options.raw())?;
        if let Some(on_strip) = settings.on_strip {
            let key = env.symbol_for(ON_STRIP_KEY)?;
            this.define_properties(&[Property::new()
                .with_name(env, key)?
                .with_value(&js.unknown(on_strip))
                .with_property_attributes(PropertyAttributes::Default)])?;
        }
        let core = settings.filter();
        Ok(ScaffoldingFilter {
            state: RefCell::new(State { core, owed: Vec::new() }),
            has_on_strip: settings.on_strip.is_some(),
            announced: Cell::new(0),
            announcing: Cell::new(false),
        })
    }

    /// Strips a whole text at once: the answer `new ScaffoldingFilter(options)`
    /// fed `text` and then flushed would give, with `onStrip` called for each
    /// stripped span, in order, before it returns. No filter object is made
    /// and nothing is kept once it returns, so a loop over many stored texts
    /// costs no more memory than one. Throws a `TypeError` when `text` is not
    /// a string, and the filter's own errors for bad options; if `onStrip`
    /// throws, so does this, and the text is not returned.
    #[napi(
        catch_unwind,
        ts_args_type = "text: string, options?: ScaffoldingFilterOptions",
        ts_return_type = "string"
    )]
    pub fn strip<'env>(env: &'env Env, text: Unknown<'env>, options: Unknown<'env>) -> Result<Unknown<'env>> {
        let js = Js::new(env);
        let text = text.raw();
        if js.type_of(text)? != ValueType::String {
            return Err(js.wrong_type("ScaffoldingFilter.strip: text", "a string", text));
        }
        let settings = read_options(js, options.raw())?;
        let mut core = settings.filter();
        // A filter only ever removes units, so a feed that emits as many as
        // it was given emitted the text unchanged, held nothing, and the
        // text is its own answer.
        let (mut out, whole) = js.with_units(text, |units| {
            Ok(core.feed_with(units, |emitted| {
                if emitted.len() == units.len() {
                    (Vec::new(), true)
                } else {
                    (emitted.to_vec(), false)
                }
            }))
        })?;
        out.extend_from_slice(&core.flush());
        if let Some(on_strip) = settings.on_strip {
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

    /// Feeds the next chunk of streamed text and returns what can be shown
    /// now: the chunk with complete markup removed, less any tail that could
    /// still turn into markup (that tail comes out of a later call). An empty
    /// chunk returns `''` and changes nothing. Throws a `TypeError` when
    /// `chunk` is not a string.
    #[napi(catch_unwind, ts_args_type = "chunk: string", ts_return_type = "string")]
    pub fn feed<'env>(&self, env: &'env Env, this: This, chunk: Unknown<'env>) -> Result<Unknown<'env>> {
        let js = Js::new(env);
        let chunk = chunk.raw();
        let mut state = self.state_for(js, "feed")?;
        if js.type_of(chunk)? != ValueType::String {
            return Err(js.wrong_type("ScaffoldingFilter.feed: chunk", "a string", chunk));
        }
        let State { core, owed } = &mut *state;
        if !self.has_on_strip {
            let text = js.with_units(chunk, |units| {
                // When the answer is the whole chunk (nothing was held before
                // or after, nothing stripped), the chunk itself is the answer.
                let held_before = core.held_len();
                core.feed_with(units, |emitted| {
                    if held_before == 0 && emitted.len() == units.len() {
                        Ok(chunk)
                    } else {
                        js.string(emitted)
                    }
                })
            })?;
            return Ok(js.unknown(text));
        }
        js.with_units(chunk, |units| {
            core.feed_with(units, |emitted| owed.extend_from_slice(emitted));
            Ok(())
        })?;
        drop(state);
        Ok(js.unknown(self.announce_then_return(js, env, &this)?))
    }

    /// Ends the stream: returns the held tail. A partial marker counts as
    /// text after all; so does a span that never closed, unless
    /// `openSpanAtEnd` is `'drop'`. The counters stay, and the filter can be
    /// fed again.
    #[napi(catch_unwind, ts_args_type = "", ts_return_type = "string")]
    pub fn flush<'env>(&self, env: &'env Env, this: This) -> Result<Unknown<'env>> {
        let js = Js::new(env);
        let mut state = self.state_for(js, "flush")?;
        let tail = state.core.flush();
        if !self.has_on_strip {
            return Ok(js.unknown(js.string(&tail)?));
        }
        state.owed.extend_from_slice(&tail);
        drop(state);
        Ok(js.unknown(self.announce_then_return(js, env, &this)?))
    }

    /// Total `.length` of every span stripped so far.
    #[napi(getter, catch_unwind)]
    pub fn stripped_chars(&self) -> f64 {
        self.state.borrow().core.stripped_chars() as f64
    }

    /// Every stripped span's text, in the order it was stripped. Each read
    /// returns a fresh array.
    #[napi(getter, catch_unwind, ts_return_type = "Array<string>")]
    pub fn stripped_spans<'env>(&self, env: &'env Env) -> Result<Vec<JsString<'env>>> {
        self.state.borrow().core.stripped_spans().map(|span| env.create_string_utf16(span)).collect()
    }

    /// Whether the filter holds nothing: no partial marker, no open span,
    /// no text or strip still owed by an `onStrip` that threw. An idle
    /// filter's `flush()` returns `''`, and a chunk with none of
    /// `startUnits` fed to it comes back unchanged.
    #[napi(getter, catch_unwind)]
    pub fn idle(&self) -> bool {
        let Ok(state) = self.state.try_borrow() else { return false };
        state.core.is_idle()
            && state.owed.is_empty()
            && !self.announcing.get()
            && (!self.has_on_strip || self.announced.get() == state.core.strips().len())
    }

    /// Every UTF-16 unit a match of this filter's patterns can begin with
    /// (for the default patterns, `'<'`), each once. No markup can start in
    /// a chunk that has none of them. `null` when no such set decides: a
    /// JSON call, which depends on where a line starts, or a regular
    /// expression that looks behind its start (`^` with `m`, `\b`).
    #[napi(getter, catch_unwind, ts_return_type = "string | null")]
    pub fn start_units(&self) -> Option<Utf16String> {
        self.state.borrow().core.start_units().map(Utf16String::from)
    }
}

impl ScaffoldingFilter {
    /// The state, for a call that changes it; refused from inside
    /// `onStrip`, whose caller is in the middle of a call already.
    fn state_for(&self, js: Js, method: &str) -> Result<RefMut<'_, State>> {
        match self.state.try_borrow_mut() {
            Ok(state) if !self.announcing.get() => Ok(state),
            _ => Err(js.error(&format!(
                "ScaffoldingFilter.{method} cannot be called from inside this filter's onStrip callback"
            ))),
        }
    }

    /// Calls `onStrip` for every strip not yet announced, then returns the
    /// owed text. If the callback throws, the text stays owed.
    fn announce_then_return(&self, js: Js, env: &Env, this: &This) -> Result<Handle> {
        {
            let _announcing = Announcing::start(&self.announcing);
            let on_strip: Function<Unknown, Unknown> = this.get_property(env.symbol_for(ON_STRIP_KEY)?)?;
            loop {
                let index = self.announced.get();
                let event = {
                    let state = self.state.borrow();
                    let Some(strip) = state.core.strip(index) else { break };
                    strip_event(js, state.core.tools(), strip)?
                };
                // Counted before the call: a strip is announced once, even
                // when the callback throws.
                self.announced.set(index + 1);
                on_strip.call(js.unknown(event))?;
            }
        }
        let mut state = self.state.borrow_mut();
        let text = js.string(&state.owed)?;
        state.owed.clear();
        Ok(text)
    }
}

/// Marks the filter as inside `onStrip` for as long as it lives, so the
/// mark goes however the announcing ends.
struct Announcing<'a>(&'a Cell<bool>);

impl<'a> Announcing<'a> {
    fn start(flag: &'a Cell<bool>) -> Self {
        flag.set(true);
        Announcing(flag)
    }
}

impl Drop for Announcing<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
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
    options: scaffolding::Options,
    tools: Option<Arc<scaffolding::Tools>>,
    on_strip: Option<Handle>,
}

impl Settings {
    fn filter(&self) -> scaffolding::ScaffoldingFilter {
        scaffolding::ScaffoldingFilter::with_tools(self.registry.clone(), self.options, self.tools.clone())
    }
}

const OPTION_NAMES: [&str; 5] = ["patterns", "tools", "openSpanAtEnd", "onStrip", "maxHeld"];

/// Reads `new ScaffoldingFilter(options)`'s argument, naming the first bad
/// value in a JavaScript error.
fn read_options(js: Js, options: Handle) -> Result<Settings> {
    let mut settings = Settings {
        registry: Registry::of_defaults(),
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
            Some(registry) => registry,
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
        settings.tools = Some(Arc::new(read_tools(js, tools)?));
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

/// `options.tools`: an array of names, or of `{ name, parameters? }` with
/// `parameters` an array of names.
fn read_tools(js: Js, list: Handle) -> Result<scaffolding::Tools> {
    let what = "ScaffoldingFilter: options.tools";
    let shapes = "an array of tool names or { name, parameters? } objects";
    let mut is_array = IsArray::new(js);
    if !is_array.test(list)? {
        return Err(js.wrong_type(what, shapes, list));
    }
    let mut tools = Vec::new();
    for index in 0..is_array.len(list)? {
        let entry = js.element(list, index as u32)?;
        let at = format!("{what}[{index}]");
        let tool = match js.type_of(entry)? {
            ValueType::String => scaffolding::Tool { name: js.utf16(entry)?, parameters: None },
            ValueType::Object if !is_array.test(entry)? => {
                for key in js.own_keys(entry)? {
                    let key = String::from_utf16_lossy(&key);
                    if key != "name" && key != "parameters" {
                        return Err(js.type_error(&format!(
                            "{at}.{} is not a tool field (the fields are name, parameters)",
                            clip(&key)
                        )));
                    }
                }
                let name = js.get(entry, c"name")?;
                if js.type_of(name)? != ValueType::String {
                    return Err(js.wrong_type(&format!("{at}.name"), "a string", name));
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
                                    &format!("{at}.parameters[{p}]"),
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
                            &format!("{at}.parameters"),
                            "an array of parameter names",
                            parameters,
                        ))
                    }
                };
                scaffolding::Tool { name: js.utf16(name)?, parameters }
            }
            _ => return Err(js.wrong_type(&at, "a tool name or a { name, parameters? } object", entry)),
        };
        tools.push(tool);
    }
    scaffolding::Tools::new(tools)
        .map_err(|error| js.type_error(&format!("{what}[{}]: {}", error.tool, error.reason)))
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
