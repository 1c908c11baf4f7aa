//! A stream's state, held by JavaScript through a tagged handle, and the
//! functions `ScaffoldingFilter` (lib/filter/scaffolding-filter.cjs) is built on.

use std::cell::RefCell;
use std::collections::HashSet;

use super::plan::{open_plan, read_options, start_units_of, with_parts};
use crate::binding::napi::{Handle, Js};
use napi::bindgen_prelude::*;
use napi::{sys, Env, Unknown, ValueType};
use napi_derive::napi;

use crate::filter as scaffolding;

// `ScaffoldingFilter` is a JavaScript class (lib/filter/scaffolding-filter.cjs) over
// the functions below, which the addon exports under `__scaffoldingFilter`
// and the package does not. A `#[napi]` class instance is a `napi_wrap`, and
// Node frees a wrap's bookkeeping and its native struct only in a finalizer
// it runs after the event loop turns, so a synchronous loop that made a
// filter per text held every one of them until it ended. Here a filter has
// no native object of its own: it keeps a plan (`plan::compile`), made once
// for its options or shared with other filters, and a stream's state lives
// in a Rust `Box` only from the feed that needs it to the flush that ends
// it. Opening a stream reads nothing from JavaScript but the plan.
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

/// A new stream for a plan (what `compile` made), as its handle.
#[napi(namespace = "__scaffoldingFilter", js_name = "open", skip_typescript, catch_unwind)]
pub fn stream_open<'env>(env: &'env Env, plan: Unknown<'env>) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let (core, reports) = open_plan(js, plan.raw(), "ScaffoldingFilter")?;
    Ok(js.unknown(open_stream(js, Stream { core, reports, reported: 0 })?))
}

/// `new ScaffoldingFilter(options)`: checks and compiles the options once
/// and opens a stream that owns what they compiled to, so that nothing of
/// them outlives the stream but what JavaScript keeps:
/// `[handle, startUnits, onStrip]`. (A plan kept for the filter would be a
/// native object freed only by a finalizer, which Node runs once the event
/// loop turns: a synchronous loop that made a filter per text from options
/// with tools would hold every compiled tool list until it ended.)
#[napi(namespace = "__scaffoldingFilter", js_name = "openWith", skip_typescript, catch_unwind)]
pub fn stream_open_with<'env>(env: &'env Env, options: Unknown<'env>, who: String) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let (plan, on_strip) = read_options(js, options.raw(), &who)?;
    let start_units = start_units_of(js, &plan)?;
    let stream = Stream { core: plan.filter(), reports: plan.reports, reported: 0 };
    Ok(js.unknown(with_parts(js, open_stream(js, stream)?, start_units, on_strip)?))
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
/// called for each stripped span, in order, before it returns. `options`
/// are options, read here, or a plan (what `compile` made), and then
/// `on_strip` is its callback. No stream is made and nothing is kept once
/// it returns. Throws a `TypeError` when `text` is not a string, and the
/// filter's own errors for bad options; if `onStrip` throws, so does this,
/// and the text is not returned.
#[napi(namespace = "__scaffoldingFilter", js_name = "strip", skip_typescript, catch_unwind)]
pub fn filter_strip<'env>(
    env: &'env Env,
    text: Unknown<'env>,
    options: Unknown<'env>,
    on_strip: Unknown<'env>,
) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let text = text.raw();
    if js.type_of(text)? != ValueType::String {
        return Err(js.wrong_type("ScaffoldingFilter.strip: text", "a string", text));
    }
    let options = options.raw();
    let (mut core, on_strip) = if js.type_of(options)? == ValueType::External {
        let (core, reports) = open_plan(js, options, "ScaffoldingFilter.strip")?;
        (core, reports.then(|| on_strip.raw()))
    } else {
        let (plan, on_strip) = read_options(js, options, "ScaffoldingFilter")?;
        (plan.filter(), on_strip)
    };
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
            let (name, offered) = match &call.tool {
                scaffolding::CalledTool::Offered(tool) => (&tools.list()[*tool].name, true),
                scaffolding::CalledTool::Unoffered(name) => (name, false),
            };
            let mut fields = vec![(c"name", js.string(name)?)];
            if !offered {
                fields.push((c"offered", js.boolean(false)?));
            }
            fields.push(match &call.input {
                Ok(input) => (c"input", json_value(js, input)?),
                Err(raw) => (c"rawInput", js.string(raw)?),
            });
            js.object(&fields)
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
