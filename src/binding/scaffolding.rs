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

use crate::scaffolding::{self, Pattern, PresetPattern, Registry};

/// The JavaScript `RegExp` source of each default pattern, in the filter's
/// order: the tool-call span (non-greedy, up to its first end), then the
/// standalone tokens `<|tool_calls|>` and `<|tool_call|>`. Each works as
/// `new RegExp(source)`.
#[napi]

pub const SCAFFOLD_PATTERNS: [&str; 3] = scaffolding::DEFAULT_PATTERN_SOURCES;

/// A span pattern: `start`, then anything, up to and including the first
/// `end` after it. Both are literal strings, not regular expressions.
// Declared for the typings only: patterns are read by hand.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ScaffoldSpan {
    #[napi(readonly)]
    pub start: String,
    #[napi(readonly)]
    pub end: String,
}

/// A token pattern: the literal string on its own.
// Declared for the typings only: patterns are read by hand.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ScaffoldToken {
    #[napi(readonly)]
    pub token: String,
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
    /// or in `SCAFFOLD_PATTERNS` for the default patterns.
    #[napi(readonly)]
    pub pattern: u32,
}

/// Options for `new ScaffoldingFilter(options)`. Every key is optional, and
/// a key set to `undefined` counts as left out; a key that is not one of
/// these is a `TypeError` (a misspelt option would otherwise be ignored
/// without a word).
// Declared for the typings only: the options are read by hand.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ScaffoldingFilterOptions {
    /// What to strip: spans and tokens given as literal strings, for
    /// example `SCAFFOLD_PRESETS.hermes`. Left out: the default patterns
    /// (`SCAFFOLD_PATTERNS`). They follow the default's rules: the
    /// leftmost complete match is stripped, again and again; spans end at
    /// their first end. No two literals may be able to overlap in any text
    /// (one inside another, or the end of one being the start of another),
    /// no literal may be empty, a span's end may not equal its start, and
    /// the list may not be empty; a list that breaks a rule is a
    /// `TypeError` naming the entry and the reason.
    #[napi(readonly, ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken> | undefined")]
    pub patterns: Option<()>,
    /// What `flush()` does with a span still open at the end: `'emit'`
    /// (the default, as the reference filter) returns it as text, `'drop'`
    /// strips it (reason `'unclosed-at-end'`). A partial marker at the end
    /// with no span open is text either way.
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
    #[napi(readonly, ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken>")]
    pub lfm2: (),
    /// The Hermes format: Qwen 2.5 and 3, GLM 4.5, Granite 4.
    #[napi(readonly, ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken>")]
    pub hermes: (),
    /// Meta Llama 3.1 and later, built-in tool calls.
    #[napi(readonly, ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken>")]
    pub llama3: (),
    /// Mistral's tokenizers, v3 and later.
    #[napi(readonly, ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken>")]
    pub mistral: (),
    /// DeepSeek V3, with its full-width bars.
    #[napi(readonly, js_name = "deepseek-v3", ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken>")]
    pub deepseek_v3: (),
    /// Moonshot Kimi K2.
    #[napi(readonly, js_name = "kimi-k2", ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken>")]
    pub kimi_k2: (),
    /// Meta Llama 4.
    #[napi(readonly, ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken>")]
    pub llama4: (),
    /// Google Gemma 4.
    #[napi(readonly, ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken>")]
    pub gemma4: (),
    /// MiniMax M2 and M2.x.
    #[napi(readonly, ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken>")]
    pub minimax: (),
    /// Zhipu GLM 4.5 and later.
    #[napi(readonly, ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken>")]
    pub glm: (),
    /// DeepSeek V3.2 and V4's DSML blocks, with their full-width bars.
    #[napi(readonly, js_name = "deepseek-dsml", ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken>")]
    pub deepseek_dsml: (),
    /// Qwen3-Coder's XML calls, wrapped or not.
    #[napi(readonly, js_name = "qwen3-coder", ts_type = "ReadonlyArray<ScaffoldSpan | ScaffoldToken>")]
    pub qwen3_coder: (),
}

/// Ready-made `patterns` for the model families whose tool-call markup is
/// known to leak, for example
/// `new ScaffoldingFilter({ patterns: SCAFFOLD_PRESETS.hermes })`.
#[napi]

pub const SCAFFOLD_PRESETS: ScaffoldPresets = ScaffoldPresets {
    lfm2: (),
    hermes: (),
    llama3: (),
    mistral: (),
    deepseek_v3: (),
    kimi_k2: (),
    llama4: (),
    gemma4: (),
    minimax: (),
    glm: (),
    deepseek_dsml: (),
    qwen3_coder: (),
};

impl ToNapiValue for ScaffoldPresets {
    unsafe fn to_napi_value(env: sys::napi_env, _: Self) -> Result<sys::napi_value> {
        presets_to_js(Js::new(&Env::from_raw(env)))
    }
}

/// `{ [name]: [{ start, end } | { token }, ...] }` from the core's presets,
/// frozen at every level.
fn presets_to_js(js: Js) -> Result<Handle> {
    let (object, freeze_fn) = js.builtin(c"Object", c"freeze")?;
    let freeze = |value: Handle| js.call(freeze_fn, object, &[value]);
    let mut presets = Vec::with_capacity(scaffolding::PRESETS.len());
    for preset in &scaffolding::PRESETS {
        let mut entries = Vec::with_capacity(preset.patterns.len());
        for pattern in preset.patterns {
            let entry = match *pattern {
                PresetPattern::Span { start, end } => {
                    js.object(&[(c"start", js.str(start)?), (c"end", js.str(end)?)])?
                }
                PresetPattern::Token(token) => js.object(&[(c"token", js.str(token)?)])?,
            };
            entries.push(freeze(entry)?);
        }
        let name = CString::new(preset.name).expect("preset names have no NUL");
        presets.push((name, freeze(js.array(&entries)?)?));
    }
    let properties: Vec<(&CStr, Handle)> =
        presets.iter().map(|(name, list)| (name.as_c_str(), *list)).collect();
    freeze(js.object(&properties)?)
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
        let core = scaffolding::ScaffoldingFilter::with_options(settings.registry, settings.options);
        Ok(ScaffoldingFilter {
            state: RefCell::new(State { core, owed: Vec::new() }),
            has_on_strip: settings.on_strip.is_some(),
            announced: Cell::new(0),
            announcing: Cell::new(false),
        })
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
                let held_before = core.held().len();
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
    /// a chunk that has none of them.
    #[napi(getter, catch_unwind, ts_return_type = "string")]
    pub fn start_units(&self) -> Utf16String {
        Utf16String::from(self.state.borrow().core.registry().start_units())
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
                    strip_event(js, strip)?
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

/// `{ span, reason, pattern }`.
fn strip_event(js: Js, strip: scaffolding::Strip<'_>) -> Result<Handle> {
    js.object(&[
        (c"span", js.string(strip.span)?),
        (c"reason", js.str(strip.reason.as_str())?),
        (c"pattern", js.number(strip.pattern as f64)?),
    ])
}

/// The options as the core takes them.
struct Settings {
    registry: Arc<Registry>,
    options: scaffolding::Options,
    on_strip: Option<Handle>,
}

const OPTION_NAMES: [&str; 4] = ["patterns", "openSpanAtEnd", "onStrip", "maxHeld"];

/// Reads `new ScaffoldingFilter(options)`'s argument, naming the first bad
/// value in a JavaScript error.
fn read_options(js: Js, options: Handle) -> Result<Settings> {
    let mut settings = Settings {
        registry: Registry::of_defaults(),
        options: scaffolding::Options::default(),
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
        settings.registry = Arc::new(read_patterns(js, patterns)?);
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

/// `options.patterns`: a non-empty array of `{ start, end }` or `{ token }`
/// entries that together make a registry.
fn read_patterns(js: Js, list: Handle) -> Result<Registry> {
    let mut is_array = IsArray::new(js);
    if !is_array.test(list)? {
        return Err(js.wrong_type(
            "ScaffoldingFilter: options.patterns",
            "an array of { start, end } and { token } entries",
            list,
        ));
    }
    let count = is_array.len(list)?;
    if count == 0 {
        return Err(js.type_error(
            "ScaffoldingFilter: options.patterns is empty, so the filter would strip nothing \
             (leave it out for the default patterns)",
        ));
    }
    let mut patterns = Vec::with_capacity(count);
    for index in 0..count {
        let what = format!("ScaffoldingFilter: options.patterns[{index}]");
        let entry = js.element(list, index as u32)?;
        if js.type_of(entry)? != ValueType::Object {
            return Err(js.wrong_type(&what, "a { start, end } or { token } object", entry));
        }
        let string = |name: &std::ffi::CStr, field: &str| -> Result<Option<Vec<u16>>> {
            let value = js.get(entry, name)?;
            match js.type_of(value)? {
                ValueType::Undefined => Ok(None),
                ValueType::String => Ok(Some(js.utf16(value)?)),
                _ => Err(js.wrong_type(&format!("{what}.{field}"), "a string", value)),
            }
        };
        let pattern = match (string(c"token", "token")?, string(c"start", "start")?, string(c"end", "end")?) {
            (Some(literal), None, None) => Pattern::Token { literal },
            (None, Some(start), Some(end)) => Pattern::Span { start, end },
            (None, None, None) => {
                return Err(
                    js.type_error(&format!("{what} must have start and end, or token (it has neither)"))
                )
            }
            (Some(_), _, _) => {
                return Err(js.type_error(&format!(
                    "{what} must have start and end, or token (it has token and a span's start or end)"
                )))
            }
            (None, start, _) => {
                let missing = if start.is_none() { "start" } else { "end" };
                return Err(js.type_error(&format!("{what}.{missing} must be a string (got undefined)")));
            }
        };
        patterns.push(pattern);
    }
    Registry::new(patterns).map_err(|error| {
        js.type_error(&format!(
            "ScaffoldingFilter: options.patterns[{}] cannot be used: {}",
            error.entry, error.reason
        ))
    })
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
