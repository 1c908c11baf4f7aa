//! `ScaffoldingFilter` and `SCAFFOLD_PATTERNS` for JavaScript.
//!
//! Strings cross as UTF-16 in both directions: napi-rs's `String`
//! conversion would turn lone surrogates into U+FFFD, so the chunk is taken
//! as a raw handle and read as code units, and answers are built from code
//! units.

use super::js::Js;
use napi::bindgen_prelude::*;
use napi::{Env, JsString, JsValue, Unknown, ValueType};
use napi_derive::napi;

use crate::scaffolding;

/// The JavaScript `RegExp` source of each default pattern, in the filter's
/// order: the tool-call span (non-greedy, up to its first end), then the
/// standalone tokens `<|tool_calls|>` and `<|tool_call|>`. Each works as
/// `new RegExp(source)`.
#[napi]
#[cfg_attr(test, allow(dead_code))] // napi registers it outside test builds only
pub const SCAFFOLD_PATTERNS: [&str; 3] = scaffolding::DEFAULT_PATTERN_SOURCES;

/// Strips a chat model's leaked tool-call markup from streamed answer text,
/// chunk by chunk, holding back only what could still become markup.
///
/// Feed each `delta.content` to `feed()` and show what it returns; call
/// `flush()` when the stream ends. The output for every chunking is the
/// reference filter's. Lengths are UTF-16 code units, and the text is never
/// decoded: lone surrogates pass through, and a pair split across chunks
/// comes out whole once the outputs are joined.
#[napi]
pub struct ScaffoldingFilter {
    inner: scaffolding::ScaffoldingFilter,
    /// The code units of the chunk being fed, kept so that reading an
    /// argument allocates only when a chunk outgrows every earlier one.
    chunk: Vec<u16>,
}

#[napi]
impl ScaffoldingFilter {
    /// A filter for the default patterns (`SCAFFOLD_PATTERNS`).
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        ScaffoldingFilter { inner: scaffolding::ScaffoldingFilter::new(), chunk: Vec::new() }
    }

    /// Feeds the next chunk of streamed text and returns what can be shown
    /// now: the chunk with complete markup removed, less any tail that could
    /// still turn into markup (that tail comes out of a later call). An empty
    /// chunk returns `''` and changes nothing. Throws a `TypeError` when
    /// `chunk` is not a string.
    #[napi(catch_unwind, ts_args_type = "chunk: string", ts_return_type = "string")]
    pub fn feed<'env>(&mut self, env: &'env Env, chunk: Unknown<'env>) -> Result<JsString<'env>> {
        let js = Js::new(env);
        if js.type_of(chunk.raw())? != ValueType::String {
            return Err(js.wrong_type("ScaffoldingFilter.feed: chunk", "a string", chunk.raw()));
        }
        js.utf16_into(chunk.raw(), &mut self.chunk)?;
        self.inner.feed_with(&self.chunk, |emitted| env.create_string_utf16(emitted))
    }

    /// Ends the stream: returns the held tail as it is (a partial marker or
    /// an unclosed span counts as text after all). The counters stay, and
    /// the filter can be fed again.
    #[napi(catch_unwind, ts_return_type = "string")]
    pub fn flush<'env>(&mut self, env: &'env Env) -> Result<JsString<'env>> {
        env.create_string_utf16(self.inner.flush())
    }

    /// Total `.length` of every span stripped so far.
    #[napi(getter, catch_unwind)]
    pub fn stripped_chars(&self) -> f64 {
        self.inner.stripped_chars() as f64
    }

    /// Every stripped span's text, in the order it was stripped. Each read
    /// returns a fresh array.
    #[napi(getter, catch_unwind, ts_return_type = "Array<string>")]
    pub fn stripped_spans<'env>(&self, env: &'env Env) -> Result<Vec<JsString<'env>>> {
        self.inner.stripped_spans().map(|span| env.create_string_utf16(span)).collect()
    }
}
