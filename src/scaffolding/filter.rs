//! The filter: the public face over the two engines, and what both keep,
//! the record of every strip.
//!
//! Two options go beyond the reference ([`Options`]): what becomes of a span
//! still open at the end ([`OpenSpanPolicy`]), and a bound on how much an
//! open span may hold between feeds (`max_held`).

use std::num::NonZeroUsize;
use std::sync::Arc;

use super::calls::{CallStage, ParsedCall, Tools};
use super::one_pass::{OnePass, Pass};
use super::registry::{Form, Registry};
use super::threads::Threads;

/// What becomes of a span that is still open when the stream ends (or when
/// it outgrows [`Options::max_held`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OpenSpanPolicy {
    /// Released as text, as the reference does: it never closed, so it may
    /// not have been markup after all.
    #[default]
    Emit,
    /// Stripped and recorded like any other span.
    Drop,
}

/// How a filter treats open spans. The default is the reference's
/// behaviour: emit at the end, no bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub open_span_at_end: OpenSpanPolicy,
    /// The most an open span may hold at the end of a feed, in code units.
    /// A span that opens and closes within one feed is never held, so it is
    /// stripped whatever its length. `None`: no bound.
    pub max_held: Option<NonZeroUsize>,
}

/// Why a span was stripped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StripReason {
    /// A complete match of a pattern.
    Match,
    /// A span still open at the flush, under [`OpenSpanPolicy::Drop`].
    UnclosedAtEnd,
    /// A span that outgrew [`Options::max_held`], under
    /// [`OpenSpanPolicy::Drop`].
    MaxHeld,
}

impl StripReason {
    /// The name JavaScript sees.
    pub fn as_str(self) -> &'static str {
        match self {
            StripReason::Match => "match",
            StripReason::UnclosedAtEnd => "unclosed-at-end",
            StripReason::MaxHeld => "max-held",
        }
    }
}

/// One stripped span, with why and by which pattern.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strip<'a> {
    pub span: &'a [u16],
    pub reason: StripReason,
    /// The index of the pattern in the registry's list, or [`TOOLS`] for
    /// tool-aware detection.
    pub pattern: usize,
    /// The calls read out of the span (tool-aware detection only).
    pub calls: &'a [ParsedCall],
}

/// The `pattern` of a strip made by tool-aware detection.
pub const TOOLS: usize = usize::MAX;

/// Where a stripped span ends in the filter's `stripped` text, and what
/// stripped it.
#[derive(Clone, Copy, Debug)]
struct StripRecord {
    end: usize,
    reason: StripReason,
    pattern: usize,
    /// Where this strip's calls end in the log's `calls`.
    calls_end: usize,
}

/// Every stripped span's text, back to back, with one record per span.
#[derive(Debug, Default)]
pub(crate) struct StripLog {
    stripped: Vec<u16>,
    strips: Vec<StripRecord>,
    calls: Vec<ParsedCall>,
}

impl StripLog {
    /// Records one stripped span, given in pieces.
    pub(crate) fn record(&mut self, pieces: &[&[u16]], reason: StripReason, pattern: usize) {
        for piece in pieces {
            self.stripped.extend_from_slice(piece);
        }
        self.strips.push(StripRecord {
            end: self.stripped.len(),
            reason,
            pattern,
            calls_end: self.calls.len(),
        });
    }

    /// Records a span stripped by tool-aware detection, with its calls.
    pub(crate) fn record_call(&mut self, span: &[u16], reason: StripReason, calls: Vec<ParsedCall>) {
        self.calls.extend(calls);
        self.record(&[span], reason, TOOLS);
    }

    #[cfg(test)]
    pub(crate) fn spans(&self) -> impl Iterator<Item = &[u16]> + '_ {
        (0..self.len()).map(|index| self.at(index).span)
    }

    #[cfg(test)]
    pub(crate) fn calls_of(&self, index: usize) -> &[ParsedCall] {
        self.at(index).calls
    }

    fn len(&self) -> usize {
        self.strips.len()
    }

    fn get(&self, index: usize) -> Option<Strip<'_>> {
        (index < self.strips.len()).then(|| self.at(index))
    }

    /// The strip with an index below `len()`.
    fn at(&self, index: usize) -> Strip<'_> {
        let StripRecord { end, reason, pattern, calls_end } = self.strips[index];
        let (start, calls_start) = match index {
            0 => (0, 0),
            _ => (self.strips[index - 1].end, self.strips[index - 1].calls_end),
        };
        Strip {
            span: &self.stripped[start..end],
            reason,
            pattern,
            calls: &self.calls[calls_start..calls_end],
        }
    }
}

/// The engine a registry runs on, with its state.
#[derive(Debug)]
enum Engine {
    OnePass(OnePass),
    Threads(Threads),
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
    /// whatever markup it comes (see the `calls` module). An empty list
    /// adds nothing.
    pub fn with_tools(registry: Arc<Registry>, options: Options, tools: Option<Arc<Tools>>) -> Self {
        let engine = match registry.form() {
            Form::Literals(literals) => Engine::OnePass(OnePass::new(literals)),
            Form::General(_) => Engine::Threads(Threads::default()),
        };
        let tools = tools.filter(|tools| !tools.is_empty()).map(|tools| (tools, CallStage::default()));
        ScaffoldingFilter { registry, options, tools, engine, log: StripLog::default() }
    }

    /// Every unit a strip can begin with, as [`Registry::start_units`];
    /// `None` under tool-aware detection, where a tool's name can begin
    /// one.
    pub fn start_units(&self) -> Option<Vec<u16>> {
        match self.tools {
            Some(_) => None,
            None => self.registry.start_units(),
        }
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
        if let Some((tools, stage)) = &mut self.tools {
            let mut passed = Vec::with_capacity(chunk.len());
            stage.feed(tools, self.options, &mut self.log, chunk, &mut passed);
            if passed.is_empty() {
                return emit(&[]);
            }
            return self.engine_feed_with(&passed, emit);
        }
        self.engine_feed_with(chunk, emit)
    }

    /// Feeds the registry's engine.
    fn engine_feed_with<R>(&mut self, chunk: &[u16], emit: impl FnOnce(&[u16]) -> R) -> R {
        match (&mut self.engine, self.registry.form()) {
            (Engine::OnePass(state), Form::Literals(literals)) => {
                Pass { state, literals, options: self.options, log: &mut self.log }.feed_with(chunk, emit)
            }
            (Engine::Threads(state), Form::General(general)) => {
                let mut out = Vec::with_capacity(chunk.len());
                state.feed(general, self.options, &mut self.log, chunk, &mut out);
                emit(&out)
            }
            _ => unreachable!("a filter's engine is chosen from its registry's form"),
        }
    }

    /// Ends the stream: returns the held tail. A partial marker is content
    /// after all; a span still open is settled by the open-span policy
    /// (returned as text, or stripped). The counters and spans stay; the
    /// filter can be fed again, as at the start of a new stream.
    pub fn flush(&mut self) -> Vec<u16> {
        let mut out = Vec::new();
        if let Some((tools, stage)) = &mut self.tools {
            let mut passed = Vec::new();
            stage.flush(tools, self.options, &mut self.log, &mut passed);
            if !passed.is_empty() {
                out = self.engine_feed_with(&passed, <[u16]>::to_vec);
            }
        }
        out.extend_from_slice(&self.engine_flush());
        out
    }

    fn engine_flush(&mut self) -> Vec<u16> {
        match (&mut self.engine, self.registry.form()) {
            (Engine::OnePass(state), Form::Literals(literals)) => {
                Pass { state, literals, options: self.options, log: &mut self.log }.flush()
            }
            (Engine::Threads(state), Form::General(general)) => {
                let mut out = Vec::new();
                state.flush(general, self.options, &mut self.log, &mut out);
                out
            }
            _ => unreachable!("a filter's engine is chosen from its registry's form"),
        }
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
        let mut held = match &self.engine {
            Engine::OnePass(state) => state.held().to_vec(),
            Engine::Threads(state) => state.held().to_vec(),
        };
        if let Some((_, stage)) = &self.tools {
            held.extend_from_slice(stage.held());
        }
        held
    }

    /// How many units are held back (the length of [`held`](Self::held)).
    pub fn held_len(&self) -> usize {
        let engine = match &self.engine {
            Engine::OnePass(state) => state.held().len(),
            Engine::Threads(state) => state.held().len(),
        };
        engine + self.tools.as_ref().map_or(0, |(_, stage)| stage.held().len())
    }

    /// Whether the held text begins an unclosed span (for the general
    /// engine: whether some match in progress has its opening complete).
    pub fn is_span_open(&self) -> bool {
        let engine = match &self.engine {
            Engine::OnePass(state) => state.is_span_open(),
            Engine::Threads(state) => state.is_span_open(),
        };
        engine || self.tools.as_ref().is_some_and(|(_, stage)| stage.is_span_open())
    }

    /// Whether nothing is held and no span is open: then a chunk with none
    /// of the registry's [`Registry::start_units`] comes out of `feed`
    /// whole, and leaves the filter idle.
    pub fn is_idle(&self) -> bool {
        let engine = match &self.engine {
            Engine::OnePass(state) => state.held().is_empty() && !state.is_span_open(),
            Engine::Threads(state) => state.is_idle(),
        };
        engine && self.tools.as_ref().is_none_or(|(_, stage)| stage.is_idle())
    }
}
