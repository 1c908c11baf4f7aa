//! The filter: the public face over the tool stage and the two engines. It
//! feeds each chunk through them in turn and keeps the record of every
//! strip (`strip`), which its options ([`Options`]) shape.

use std::sync::Arc;

use super::engine::general::compile::FEW;
use super::engine::general::threads::Threads;
use super::engine::one_pass::{OnePass, Pass};
use super::registry::{Form, Registry};
use super::scan::Bitmap;
use super::strip::{Options, Strip, StripLog};
use super::tidy::Tidy;
use super::tool_aware::{CallStage, Tools};

/// The engine a registry runs on, with its state.
#[derive(Debug)]
enum Engine {
    OnePass(OnePass),
    /// The general engine's state, and what it lets through: a buffer
    /// reused by every feed (a fresh one per feed costs a long chunk its
    /// pages each time).
    Threads(Threads, Vec<u16>),
}

impl Engine {
    /// Feeds `chunk` to the engine of `registry`, lending what it passes to
    /// `emit`; `marked`: where the tool stage marked the general engine's
    /// first units in `chunk`, when it did.
    fn feed_with<R>(
        &mut self,
        registry: &Registry,
        options: Options,
        log: &mut StripLog,
        chunk: &[u16],
        marked: Option<&Bitmap>,
        emit: impl FnOnce(&[u16]) -> R,
    ) -> R {
        match (self, registry.form()) {
            (Engine::OnePass(state), Form::Literals(literals)) => {
                Pass { state, literals, options, log }.feed_with(chunk, emit)
            }
            (Engine::Threads(state, released), Form::General(general)) => {
                let mut out = std::mem::take(released);
                out.clear();
                let lent = state.feed_lending(general, options, log, chunk, &mut out, marked);
                // What the engine released uncut goes on where it lies.
                let answer = if lent > 0 { emit(&chunk[..lent]) } else { emit(&out) };
                *released = out;
                answer
            }
            _ => unreachable!("a filter's engine is chosen from its registry's form"),
        }
    }
}

/// Strips a registry's scaffolding from streamed text, chunk by chunk, with
/// exactly the output of the reference filter for every chunking.
///
/// Text is UTF-16 code units. Nothing is decoded, so a lone surrogate passes
/// through and a pair split across two chunks comes out as two halves that
/// the caller's concatenation rejoins.
#[derive(Debug)]
pub struct ScaffoldingFilter {
    registry: Arc<Registry>,
    options: Options,
    /// Tool-aware detection, when tools were given: it reads the text
    /// first, and the registry's engine reads what it lets through.
    tools: Option<(Arc<Tools>, CallStage)>,
    engine: Engine,
    log: StripLog,
    /// With `tidy_whitespace`: one tidy stage after tool-aware detection,
    /// one after the registry's engine.
    tidy: Option<Box<[Tidy; 2]>>,
    /// What tool-aware detection passes on, a buffer reused by every feed
    /// (a fresh one per feed costs a long chunk its pages each time).
    passed: Vec<u16>,
    /// The general engine's first units, narrowed, for the tool stage to
    /// mark as it reads a chunk; `None` without tools or that engine.
    pub(crate) begins: Option<[u8; FEW]>,
}

impl Default for ScaffoldingFilter {
    fn default() -> Self {
        Self::new()
    }
}

impl ScaffoldingFilter {
    /// A filter for the default registry (the reference's three patterns).
    pub fn new() -> Self {
        Self::with_registry(Registry::of_defaults())
    }

    /// A filter for any checked registry, with the reference's options.
    pub fn with_registry(registry: Arc<Registry>) -> Self {
        Self::with_options(registry, Options::default())
    }

    /// A filter for any checked registry and options.
    pub fn with_options(registry: Arc<Registry>, options: Options) -> Self {
        Self::with_tools(registry, options, None)
    }

    /// A filter that also strips a leaked call to any of `tools`, in
    /// whatever markup it comes (see the `tool_aware` module). An empty list
    /// adds nothing.
    pub fn with_tools(registry: Arc<Registry>, options: Options, tools: Option<Arc<Tools>>) -> Self {
        let engine = match registry.form() {
            Form::Literals(literals) => Engine::OnePass(OnePass::new(literals)),
            Form::General(_) => Engine::Threads(Threads::default(), Vec::new()),
        };
        let tools = tools.filter(|tools| !tools.is_empty()).map(|tools| (tools, CallStage::default()));
        let tidy = options.tidy_whitespace.then(|| Box::new([Tidy::default(), Tidy::default()]));
        let log = StripLog { track_cuts: options.tidy_whitespace, ..StripLog::default() };
        let passed = Vec::new();
        // With tools, the stage marks, as it reads a chunk, where the general
        // engine's patterns may begin, so that the engine, reading what the
        // stage lent, need not scan the same units again.
        let begins = match registry.form() {
            Form::General(general) if tools.is_some() => general.narrowed_begins(),
            _ => None,
        };
        ScaffoldingFilter { registry, options, tools, engine, log, tidy, passed, begins }
    }

    /// Every unit a strip can begin with, as [`Registry::start_units`];
    /// `None` under tool-aware detection, where a tool's name can begin
    /// one.
    pub fn start_units(&self) -> Option<Vec<u16>> {
        Self::start_units_of(&self.registry, self.options, self.tools.is_some())
    }

    /// [`ScaffoldingFilter::start_units`] of a filter not built yet: for
    /// `registry` and `options`, with tools (a list that is not empty) or
    /// without.
    pub fn start_units_of(registry: &Registry, options: Options, tools: bool) -> Option<Vec<u16>> {
        if tools || options.tidy_whitespace {
            // A tool's name can begin a strip; a tidy filter holds back
            // trailing whitespace, so no set of units says a chunk passes.
            return None;
        }
        registry.start_units()
    }

    /// The offered tools that tool-aware detection reads, if any.
    pub fn tools(&self) -> Option<&Tools> {
        self.tools.as_ref().map(|(tools, _)| &**tools)
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    pub fn options(&self) -> Options {
        self.options
    }

    /// Feeds one chunk and returns the text that can no longer become
    /// scaffolding. An empty chunk returns nothing and changes nothing.
    pub fn feed(&mut self, chunk: &[u16]) -> Vec<u16> {
        self.feed_with(chunk, <[u16]>::to_vec)
    }

    /// [`ScaffoldingFilter::feed`], lending the emitted text to `emit`
    /// instead of copying it out.
    pub fn feed_with<R>(&mut self, chunk: &[u16], emit: impl FnOnce(&[u16]) -> R) -> R {
        if chunk.is_empty() {
            return emit(&[]);
        }
        if self.tidy.is_some() {
            let out = self.feed_tidy(chunk);
            return emit(&out);
        }
        if let Some((tools, stage)) = &mut self.tools {
            let mut passed = std::mem::take(&mut self.passed);
            passed.clear();
            let lent =
                stage.feed_lending(tools, self.options, &mut self.log, chunk, &mut passed, self.begins);
            // What the stage passed uncut goes on where it lies.
            let answer = if lent > 0 {
                let marked = stage.chunk_begins();
                self.engine.feed_with(
                    &self.registry,
                    self.options,
                    &mut self.log,
                    &chunk[..lent],
                    marked,
                    emit,
                )
            } else if passed.is_empty() {
                emit(&[])
            } else {
                self.engine_feed_with(&passed, emit)
            };
            self.passed = passed;
            return answer;
        }
        self.engine_feed_with(chunk, emit)
    }

    /// A feed with the whitespace tidied after each stage.
    fn feed_tidy(&mut self, chunk: &[u16]) -> Vec<u16> {
        let mut passed = chunk.to_vec();
        if let Some((tools, stage)) = &mut self.tools {
            let mut out = Vec::with_capacity(chunk.len());
            stage.feed(tools, self.options, &mut self.log, chunk, &mut out);
            passed = self.tidied(0, &out, false);
        }
        if passed.is_empty() {
            return passed;
        }
        let out = self.engine_feed_with(&passed, <[u16]>::to_vec);
        self.tidied(1, &out, false)
    }

    /// `out`, the latest output of stage `which` (0: tool-aware detection,
    /// 1: the engine), with its cuts' whitespace settled; `end`: the stream
    /// ends after it.
    fn tidied(&mut self, which: usize, out: &[u16], end: bool) -> Vec<u16> {
        let cuts = self.log.take_cuts(out.len());
        let Some(tidy) = &mut self.tidy else { return out.to_vec() };
        let mut tidied = Vec::with_capacity(out.len());
        tidy[which].apply(out, &cuts, &mut tidied);
        if end {
            tidy[which].finish(&mut tidied);
        }
        tidied
    }

    /// Feeds the registry's engine.
    fn engine_feed_with<R>(&mut self, chunk: &[u16], emit: impl FnOnce(&[u16]) -> R) -> R {
        self.engine.feed_with(&self.registry, self.options, &mut self.log, chunk, None, emit)
    }

    /// Ends the stream: returns the held tail. A partial marker is content
    /// after all; a span still open is settled by the open-span policy
    /// (returned as text, or stripped). The counters and spans stay; the
    /// filter can be fed again, as at the start of a new stream.
    pub fn flush(&mut self) -> Vec<u16> {
        let mut out = Vec::new();
        if let Some((tools, stage)) = &mut self.tools {
            let mut passed = Vec::new();
            stage.flush(tools, &mut self.log, &mut passed);
            if self.tidy.is_some() {
                passed = self.tidied(0, &passed, true);
            }
            if !passed.is_empty() {
                out = self.engine_feed_with(&passed, <[u16]>::to_vec);
            }
        }
        if self.tidy.is_some() {
            out = self.tidied(1, &out, false);
            let tail = self.engine_flush();
            out.extend_from_slice(&self.tidied(1, &tail, true));
            return out;
        }
        out.extend_from_slice(&self.engine_flush());
        out
    }

    fn engine_flush(&mut self) -> Vec<u16> {
        match (&mut self.engine, self.registry.form()) {
            (Engine::OnePass(state), Form::Literals(literals)) => {
                Pass { state, literals, options: self.options, log: &mut self.log }.flush()
            }
            (Engine::Threads(state, _), Form::General(general)) => {
                let mut out = Vec::new();
                state.flush(general, self.options, &mut self.log, &mut out);
                out
            }
            _ => unreachable!("a filter's engine is chosen from its registry's form"),
        }
    }

    /// The work the general engine and tool-aware detection have done so
    /// far, in their own units (see `growth.rs`); `None` on the one-pass
    /// engine, which counts nothing.
    #[cfg(test)]
    pub(crate) fn work(&self) -> Option<u64> {
        let Engine::Threads(state, _) = &self.engine else { return None };
        Some(state.work + self.tools.as_ref().map_or(0, |(_, stage)| stage.work))
    }

    /// Total length of the stripped spans, in code units.
    pub fn stripped_chars(&self) -> usize {
        self.log.stripped.len()
    }

    /// The stripped spans, in the order they were stripped.
    pub fn stripped_spans(&self) -> impl ExactSizeIterator<Item = &[u16]> + '_ {
        self.strips().map(|strip| strip.span)
    }

    /// Every strip with its reason and pattern, in strip order.
    pub fn strips(&self) -> impl ExactSizeIterator<Item = Strip<'_>> + '_ {
        (0..self.log.len()).map(|index| self.log.at(index))
    }

    /// The strip with this index (in strip order), if there is one.
    pub fn strip(&self, index: usize) -> Option<Strip<'_>> {
        self.log.get(index)
    }

    /// The text held back for the next feed or the flush: what the
    /// registry's engine holds, then what tool-aware detection holds.
    pub fn held(&self) -> Vec<u16> {
        // Oldest first: what the last tidy stage holds, the engine, the
        // tidy stage after tool-aware detection, tool-aware detection.
        let mut held = Vec::new();
        if let Some(tidy) = &self.tidy {
            tidy[1].held_into(&mut held);
        }
        held.extend_from_slice(match &self.engine {
            Engine::OnePass(state) => state.held(),
            Engine::Threads(state, _) => state.held(),
        });
        if let Some(tidy) = &self.tidy {
            tidy[0].held_into(&mut held);
        }
        if let Some((_, stage)) = &self.tools {
            held.extend_from_slice(stage.held());
        }
        held
    }

    /// How many units are held back (the length of [`held`](Self::held)).
    pub fn held_len(&self) -> usize {
        let engine = match &self.engine {
            Engine::OnePass(state) => state.held().len(),
            Engine::Threads(state, _) => state.held().len(),
        };
        let tidy = self.tidy.as_ref().map_or(0, |tidy| tidy[0].held_len() + tidy[1].held_len());
        engine + tidy + self.tools.as_ref().map_or(0, |(_, stage)| stage.held().len())
    }

    /// Whether the held text begins an unclosed span (for the general
    /// engine: whether some match in progress has its opening complete).
    pub fn is_span_open(&self) -> bool {
        let engine = match &self.engine {
            Engine::OnePass(state) => state.is_span_open(),
            Engine::Threads(state, _) => state.is_span_open(),
        };
        engine || self.tools.as_ref().is_some_and(|(_, stage)| stage.is_span_open())
    }

    /// Whether nothing is held and no span is open: then a chunk with none
    /// of the registry's [`Registry::start_units`] comes out of `feed`
    /// whole, and leaves the filter idle.
    pub fn is_idle(&self) -> bool {
        let engine = match &self.engine {
            Engine::OnePass(state) => state.held().is_empty() && !state.is_span_open(),
            Engine::Threads(state, _) => state.is_idle(),
        };
        engine
            && self.tools.as_ref().is_none_or(|(_, stage)| stage.is_idle())
            && self.tidy.as_ref().is_none_or(|tidy| tidy.iter().all(Tidy::is_idle))
    }
}

#[cfg(test)]
mod tidy_tests {
    use super::*;
    use crate::filter::presets::HERMES;

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    /// `text` through a tidy filter for `registry`, in chunks of `size`.
    fn tidy(registry: Arc<Registry>, text: &str, size: usize) -> String {
        let options = Options { tidy_whitespace: true, ..Options::default() };
        let mut filter = ScaffoldingFilter::with_options(registry, options);
        let mut out = Vec::new();
        for chunk in units(text).chunks(size) {
            out.extend(filter.feed(chunk));
        }
        out.extend(filter.flush());
        String::from_utf16(&out).unwrap()
    }

    #[test]
    fn settles_the_whitespace_around_each_cut_in_every_chunking() {
        let span = "<|tool_call_start|>[read(path='x')]<|tool_call_end|>";
        let cases = [
            (format!("Let me check. {span} Done."), "Let me check. Done."),
            (format!("Let me check.{span} Done."), "Let me check. Done."),
            (format!("Let me check. {span}\n\nDone."), "Let me check.\n\nDone."),
            (format!("Para.\n\n{span}\n\n\nNext."), "Para.\n\nNext."),
            (format!("{span}\n  Hello"), "Hello"),
            (format!("Hello {span}  "), "Hello"),
            (format!("a {span} {span} b"), "a b"),
            (format!("    one()\n    {span}\n    two()"), "    one()\n    two()"),
            (format!("x\r\n{span}\r\ny"), "x\r\ny"),
            (format!("ab{span}cd"), "abcd"),
            // No cut: the text is left as it is, whitespace and all.
            ("  keep  these   spaces \n\n\n ".to_owned(), "  keep  these   spaces \n\n\n "),
        ];
        for (text, want) in &cases {
            for size in [1, 2, 3, 5, 1000] {
                assert_eq!(tidy(Registry::of_defaults(), text, size), *want, "{text:?} in chunks of {size}");
                let general = Arc::new(
                    Registry::new(
                        HERMES.to_patterns().into_iter().chain(crate::filter::default_patterns()).collect(),
                    )
                    .unwrap(),
                );
                assert_eq!(tidy(general, text, size), *want, "general engine: {text:?} in chunks of {size}");
            }
        }
    }

    #[test]
    fn is_off_by_default() {
        let mut filter = ScaffoldingFilter::new();
        let mut out = filter.feed(&units("Let me check. <|tool_call_start|>x<|tool_call_end|> Done."));
        out.extend(filter.flush());
        assert_eq!(String::from_utf16(&out).unwrap(), "Let me check.  Done.");
    }
}

#[cfg(test)]
mod tidy_state_tests {
    use super::*;

    #[test]
    fn what_tidy_holds_is_counted_as_held() {
        let options = Options { tidy_whitespace: true, ..Options::default() };
        let mut filter = ScaffoldingFilter::with_options(Registry::of_defaults(), options);
        assert_eq!(filter.start_units(), None);
        let out = filter.feed(&"a ".encode_utf16().collect::<Vec<_>>());
        assert_eq!(String::from_utf16(&out).unwrap(), "a");
        assert_eq!(filter.held(), vec![u16::from(b' ')]);
        assert_eq!(filter.held_len(), 1);
        assert!(!filter.is_idle());
        let out = filter.feed(&"<|tool_call|>".encode_utf16().collect::<Vec<_>>());
        assert!(out.is_empty());
        assert!(!filter.is_idle(), "a cut waits for what follows it");
        assert_eq!(String::from_utf16(&filter.flush()).unwrap(), "");
        assert!(filter.is_idle());
    }
}
