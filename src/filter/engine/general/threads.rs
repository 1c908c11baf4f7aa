//! The general engine: any registry, every pattern kind, one unit at a time.
//!
//! What it strips is what one regular expression made of the patterns, in
//! registry order, would find in the whole text: the leftmost match, a tie
//! at one start going to the earlier pattern, then the next match after it,
//! and so on. A strip never joins its neighbours into a new match, so the
//! output is the same for every chunking.
//!
//! Every possible match is a *thread*: a pattern, the position where the
//! match would begin, and where the pattern's automaton stands (a literal's
//! matched length, a DFA state, a JSON scanner, ...). Each unit advances
//! the threads in progress and may begin new ones. Threads are kept in
//! order of (start, pattern), so the first thread decides: once it has
//! finished its match, that match is the leftmost one and is stripped,
//! together with every thread that began inside it; while it is still
//! running, everything from its start on is held. Text before the first
//! thread can no longer take part in a match and is released.
//!
//! A unit steps each run once and the registry bounds how many runs
//! there are, so the engine is linear in its input; `docs/design.md` ("The
//! general engine") says why that holds, and `growth.rs` counts the work.

use std::collections::{HashMap, VecDeque};

use super::compile::{Compiled, EndMatcher, General, Matcher, CALL_BEGINS};
use super::run::{
    advance_step, is_high, is_low, opened, CallPhase, CallValue, DfaRun, DfaSays, Member, Members, Next, Run,
    Says, Step,
};
use crate::filter::json::{self, JsonScan};
use crate::filter::regex::context_of;
use crate::filter::scan::{find_any, Bitmap};
use crate::filter::strip::{OpenSpanPolicy, Options, StripLog, StripReason};

fn at_line_start(previous: Option<u16>) -> bool {
    matches!(previous, None | Some(0x0A) | Some(0x0D))
}

/// One possible match, in the order of matches.
#[derive(Clone, Copy, Debug)]
struct Slot {
    start: usize,
    pattern: usize,
    state: SlotState,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlotState {
    /// Its thread is on a run.
    Running,
    /// Complete, ending at `end`; stripped once it comes first.
    Done { end: usize },
    /// No match: dropped once it comes first, or with others when they are
    /// many.
    Gone,
    /// At the flush: a match the end left unclosed, and whether it may be
    /// dropped as a call (any open span; a JSON call cut off inside its
    /// value only when what came of the value already shows a call, since
    /// a JSON answer cut off by a token limit is the answer's own text).
    Unclosed { is_call: bool },
}

/// Above this capacity, the buffer is given back once it is small again.
const KEEP_CAPACITY: usize = 4096;

/// How many empty queues of ended runs are kept, and how large a queue may
/// be to be kept.
const SPARE_QUEUES: usize = 64;
const SPARE_CAPACITY: usize = 64;

/// Gone slots are dropped from among the others once there are this many,
/// and as many as the others.
const GONE_TO_DROP: usize = 256;

/// The general engine's state. Positions are counted in units from the
/// start of the stream.
///
/// Every possible match is a *thread* with a *slot* in `slots`: the slots
/// are in order of (start, pattern), because a thread begins at the unit
/// it starts at and the patterns are tried in order, so no slot is ever
/// inserted. The first slot decides: once complete, its match is the
/// leftmost one and is stripped, with every slot that began inside it;
/// while it runs, everything from its start on is held. A complete match
/// behind a running one waits in its slot and costs nothing per unit.
///
/// The threads' automata are *runs*, each carrying the threads that stand
/// in one state, so a unit steps each run once. How many runs there are at
/// once is bounded by the registry, not the text: per pattern, one for each
/// state of its automaton (a literal start's, a DFA's, a span end's) and,
/// for JSON, one for the values read outside strings and one for those read
/// inside them, since a value that begins inside another joins its run
/// (whether a scan is inside a string is the same for two scans, or the
/// opposite, for as long as both live).
#[derive(Debug, Default)]
pub(crate) struct Threads {
    /// The units read from `base` on. Those before `decided` are released
    /// or stripped already; they are dropped from the buffer once per feed,
    /// not once per unit.
    held: Vec<u16>,
    base: usize,
    decided: usize,
    /// Every possible match not yet stripped or dropped, in order; each
    /// starts at or after `decided`. `slots[i]` is slot `first_slot + i`.
    slots: VecDeque<Slot>,
    first_slot: usize,
    /// How many slots are gone but still in `slots`.
    gone: usize,
    /// The automata in progress, in no order; every running slot is on
    /// exactly one.
    runs: Vec<Run>,
    /// Scratch for `gather`, kept for its allocations: by pattern, and by
    /// run.
    last_of: Vec<usize>,
    previous_of: Vec<usize>,
    /// Empty queues of ended runs, for runs that come to carry more than
    /// one thread.
    spare_members: Vec<VecDeque<Member>>,
    /// The unit before the next one, in the text as given.
    previous: Option<u16>,
    /// Where a JSON call may begin although no line does: right after
    /// another call on the same line (`{…} {…}`).
    call_may_begin_at: Option<usize>,
    /// Whether an unclosed span is dropped at the end (the options'
    /// policy): then JSON calls note whether their values show a call.
    drop_unclosed: bool,
    /// Units read, runs stepped and compared, threads moved and settled
    /// (tests only).
    #[cfg(test)]
    pub(crate) work: u64,
}

impl Threads {
    /// The text not yet released or stripped.
    pub(crate) fn held(&self) -> &[u16] {
        &self.held[self.decided - self.base..]
    }

    pub(crate) fn is_span_open(&self) -> bool {
        self.runs.iter().any(|run| run.step.is_open())
    }

    pub(crate) fn is_idle(&self) -> bool {
        self.runs.is_empty() && self.slots.is_empty() && self.held().is_empty()
    }

    /// How many units at the start of `rest` (what is left of the chunk,
    /// with nothing under way) begin no match: a context-free scan for a
    /// unit that may begin one somewhere, then the exact test there.
    /// `marked`: where in the chunk such a unit may be, marked by the tool
    /// stage as it read the same chunk (see [`Threads::feed_lending`]), with
    /// where `rest` begins in it.
    fn next_begin(&self, general: &General, rest: &[u16], marked: Option<(&Bitmap, usize)>) -> usize {
        let mut offset = 0;
        loop {
            let found = match (marked, &general.few_begins) {
                (Some((bitmap, at)), _) => {
                    let next = bitmap.next(at + offset, at + rest.len()) - at - offset;
                    (offset + next < rest.len()).then_some(next)
                }
                (None, Some(units)) => find_any(&rest[offset..], *units),
                (None, None) => rest[offset..].iter().position(|&unit| general.begins_somewhere(unit)),
            };
            match found {
                None => return rest.len(),
                Some(found) => offset += found,
            }
            let previous = if offset == 0 { self.previous } else { Some(rest[offset - 1]) };
            if general.may_begin(rest[offset], previous)
                && (self.call_may_begin_at == Some(self.base + self.held.len() + offset)
                    || general.could_begin(&rest[offset..], previous))
            {
                return offset;
            }
            offset += 1;
        }
    }

    /// Feeds `chunk`, appending what can be released to `out`, and lending
    /// what it can (see [`Sink`]): returns how many units from the chunk's
    /// start it released, in order and uncut, without copying them to
    /// `out`; when there are any, nothing else was written there. A clean
    /// chunk is released where it lies. `marked`: a bitmap of the chunk in
    /// which every unit of [`General::few_begins`] is marked (the tool
    /// stage's, from its own read of the chunk): the scan for the next one
    /// is then a bit scan. A place marked that holds none is passed by the
    /// exact test.
    pub(crate) fn feed_lending(
        &mut self,
        general: &General,
        options: Options,
        log: &mut StripLog,
        chunk: &[u16],
        out: &mut Vec<u16>,
        marked: Option<&Bitmap>,
    ) -> usize {
        self.drop_unclosed = options.open_span_at_end == OpenSpanPolicy::Drop;
        let mut sink = Sink { out, chunk, chunk_at: self.base + self.held.len(), lent: Some(0) };
        let mut read = 0;
        while read < chunk.len() {
            if self.slots.is_empty() {
                // Nothing is under way: release everything up to the next
                // unit that may begin a match, without looking further.
                let skip = self.next_begin(general, &chunk[read..], marked.map(|bitmap| (bitmap, read)));
                count_work!(self.work, skip + 1);
                if skip > 0 {
                    let to = self.base + self.held.len();
                    self.release_to(to, &mut sink);
                    sink.extend(to, &chunk[read..read + skip]);
                    self.held.clear();
                    self.base = to + skip;
                    self.decided = self.base;
                    read += skip;
                    self.previous = Some(chunk[read - 1]);
                    continue;
                }
            }
            self.push(general, log, chunk[read], &mut sink);
            read += 1;
        }
        let end = self.base + self.held.len();
        let hold = self.first().map_or(end, |slot| slot.start);
        self.release_to(hold, &mut sink);
        if let Some(most) = options.max_held {
            if end - hold > most.get() {
                self.settle(options, log, StripReason::MaxHeld, &mut sink);
            }
        }
        self.compact();
        sink.lent.unwrap_or(0)
    }

    /// Ends the stream: every match that the end completes is stripped, an
    /// open span is settled by the policy, the rest is released. The next
    /// feed begins a new stream.
    pub(crate) fn flush(
        &mut self,
        general: &General,
        options: Options,
        log: &mut StripLog,
        out: &mut Vec<u16>,
    ) {
        let out = &mut Sink { out, chunk: &[], chunk_at: 0, lent: None };
        let end = self.base + self.held.len();
        let runs = std::mem::take(&mut self.runs);
        for run in runs {
            self.finish(general, run, end);
        }
        while let Some(&Slot { start, pattern, state }) = self.first() {
            count_work!(self.work, 1);
            match state {
                SlotState::Done { end } => self.strip(pattern, start, end, StripReason::Match, log, out),
                SlotState::Unclosed { is_call: true } if options.open_span_at_end == OpenSpanPolicy::Drop => {
                    self.strip(pattern, start, end, StripReason::UnclosedAtEnd, log, out);
                }
                _ => self.drop_first(),
            }
        }
        self.release_to(end, out);
        self.compact();
        self.previous = None;
    }

    /// Settles the threads of one run at the end of the text, `end`: what
    /// the end completes is done, what it leaves open is unclosed, the rest
    /// is gone.
    fn finish(&mut self, general: &General, mut run: Run, end: usize) {
        count_work!(self.work, 1 + run.members.len());
        let compiled = &general.patterns[run.pattern];
        let unclosed = SlotState::Unclosed { is_call: true };
        match (&mut run.step, compiled) {
            (Step::Dfa(dfa_run), Compiled::Token(Matcher::Dfa(dfa)))
            | (Step::EndDfa(dfa_run), Compiled::Span { end: EndMatcher::Dfa(dfa), .. }) => {
                let says = dfa_run.finish(dfa, end);
                // With no match, a token is text and a span's end unclosed.
                let none = if matches!(compiled, Compiled::Span { .. }) { unclosed } else { SlotState::Gone };
                for member in run.members.iter() {
                    let state = match says {
                        DfaSays::EndsAt(at) => SlotState::Done { end: at },
                        _ => dfa_run.fallback(member).map_or(none, |at| SlotState::Done { end: at }),
                    };
                    self.set(member.slot, state);
                }
            }
            // A start that the end completes opens a span that nothing can
            // close.
            (
                Step::Dfa(dfa_run),
                Compiled::Span { start: Matcher::Dfa(dfa), .. } | Compiled::Json { start: Matcher::Dfa(dfa) },
            ) => {
                let says = dfa_run.finish(dfa, end);
                for member in run.members.iter() {
                    let opening = match says {
                        DfaSays::EndsAt(at) => Some(at),
                        _ => dfa_run.fallback(member),
                    };
                    let state = match opening.map(|at| opened(compiled, at, None)) {
                        Some(Next::Step(_)) => unclosed,
                        Some(Next::Done(at)) => SlotState::Done { end: at },
                        Some(Next::Dead) | None => SlotState::Gone,
                    };
                    self.set(member.slot, state);
                }
            }
            (Step::Call(CallPhase::Trailing { end }), _) => {
                let end = *end;
                self.settle_all(&run, SlotState::Done { end });
            }
            (Step::Call(CallPhase::Closing(_)), _) | (Step::EndLiteral { .. } | Step::Json(_), _) => {
                self.settle_all(&run, unclosed);
            }
            (Step::CallValue(_), _) => {
                for member in run.members.iter() {
                    self.set(member.slot, SlotState::Unclosed { is_call: member.shows_call });
                }
            }
            // A partial literal, an unfinished call: text after all.
            _ => self.settle_all(&run, SlotState::Gone),
        }
    }

    /// Drops the decided units from the buffer.
    fn compact(&mut self) {
        self.held.drain(..self.decided - self.base);
        self.base = self.decided;
        // One long match does not pin its memory for the stream's lifetime.
        if self.held.capacity() > KEEP_CAPACITY && self.held.len() < KEEP_CAPACITY / 4 {
            self.held.shrink_to(KEEP_CAPACITY / 4);
        }
    }

    /// Settles the first match as the flush would, and carries on with
    /// nothing held.
    fn settle(&mut self, options: Options, log: &mut StripLog, reason: StripReason, out: &mut Sink<'_>) {
        let end = self.base + self.held.len();
        if let Some(&Slot { start, pattern, .. }) = self.first() {
            // The first slot is the first thread of the run it is on.
            let first = self.first_slot;
            let open = self.runs.iter().any(|run| {
                run.step.is_open() && run.members.front().is_some_and(|member| member.slot == first)
            });
            if open && options.open_span_at_end == OpenSpanPolicy::Drop {
                self.strip(pattern, start, end, reason, log, out);
            }
        }
        self.runs.clear();
        self.first_slot += self.slots.len();
        self.slots.clear();
        self.gone = 0;
        self.release_to(end, out);
    }

    /// Releases the undecided text before `to`.
    fn release_to(&mut self, to: usize, out: &mut Sink<'_>) {
        out.extend(self.decided, &self.held[self.decided - self.base..to - self.base]);
        self.decided = to;
    }

    /// The first slot that is not gone, dropping the gone ones before it.
    fn first(&mut self) -> Option<&Slot> {
        while self.slots.front().is_some_and(|slot| slot.state == SlotState::Gone) {
            self.drop_first();
        }
        self.slots.front()
    }

    /// Drops the first slot (whose thread, if it has one, is dropped by the
    /// caller).
    fn drop_first(&mut self) {
        if let Some(slot) = self.slots.pop_front() {
            self.first_slot += 1;
            if slot.state == SlotState::Gone {
                self.gone -= 1;
            }
        }
    }

    /// Sets the state of slot `slot`.
    fn set(&mut self, slot: usize, state: SlotState) {
        let slot = &mut self.slots[slot - self.first_slot];
        if state == SlotState::Gone && slot.state != SlotState::Gone {
            self.gone += 1;
        }
        slot.state = state;
    }

    /// Sets the state of every thread on `run`.
    fn settle_all(&mut self, run: &Run, state: SlotState) {
        count_work!(self.work, run.members.len());
        for member in run.members.iter() {
            self.set(member.slot, state);
        }
    }

    /// Strips `[start, end)` for `pattern`, releasing the text before it,
    /// and drops the threads that began inside it.
    fn strip(
        &mut self,
        pattern: usize,
        start: usize,
        end: usize,
        reason: StripReason,
        log: &mut StripLog,
        out: &mut Sink<'_>,
    ) {
        self.release_to(start, out);
        log.record(&[&self.held[start - self.base..end - self.base]], reason, pattern);
        log.cut_at(out.written().len());
        self.decided = end;
        while self.slots.front().is_some_and(|slot| slot.start < end) {
            count_work!(self.work, 1);
            self.drop_first();
        }
        // The threads of the dropped slots are the first of their runs.
        let first = self.first_slot;
        count_work!(self.work, self.runs.len());
        let mut runs = std::mem::take(&mut self.runs);
        runs.retain_mut(|run| {
            while run.members.front().is_some_and(|member| member.slot < first) {
                run.members.pop_front();
            }
            !run.members.is_empty() || self.end(run)
        });
        self.runs = runs;
    }

    /// Drops the gone slots from among the others, numbering the rest anew.
    fn drop_gone(&mut self) {
        count_work!(self.work, self.slots.len());
        let mut renumbered = Vec::with_capacity(self.slots.len());
        let mut next = self.first_slot;
        for slot in &self.slots {
            renumbered.push(next);
            if slot.state != SlotState::Gone {
                next += 1;
            }
        }
        self.slots.retain(|slot| slot.state != SlotState::Gone);
        self.gone = 0;
        let first = self.first_slot;
        for run in &mut self.runs {
            count_work!(self.work, run.members.len());
            for member in run.members.iter_mut() {
                member.slot = renumbered[member.slot - first];
            }
        }
    }

    /// Reads one unit: advances every run, begins new threads, gathers the
    /// runs that have one future, and strips what is complete.
    fn push(&mut self, general: &General, log: &mut StripLog, unit: u16, out: &mut Sink<'_>) {
        let at = self.base + self.held.len();
        self.held.push(unit);
        let previous = self.previous;
        // (Runs that a run gives rise to, a call's after its value, go to
        // `self.runs` meanwhile, and are not stepped again over this unit.)
        let mut runs = std::mem::take(&mut self.runs);
        runs.retain_mut(|run| self.advance(general, run, unit, at));
        runs.append(&mut self.runs);
        self.runs = runs;
        // The threads that ended as the newest leave no gone slots.
        while self.slots.back().is_some_and(|slot| slot.state == SlotState::Gone) {
            self.slots.pop_back();
            self.gone -= 1;
        }
        let in_pair = previous.is_some_and(is_high) && is_low(unit);
        if general.may_begin(unit, previous) || self.call_may_begin_at == Some(at) {
            // An ASCII unit looks only at the patterns that can begin with
            // it; any other unit at every pattern.
            let context = context_of(previous);
            let openers = general.ascii_openers[context].get(usize::from(unit));
            let count = openers.map_or(general.patterns.len(), Vec::len);
            for candidate in 0..count {
                let pattern = openers.map_or(candidate, |openers| openers[candidate]);
                let compiled = &general.patterns[pattern];
                let step = match compiled {
                    Compiled::Token(start) | Compiled::Span { start, .. } | Compiled::Json { start } => {
                        match start {
                            Matcher::Literal(units) if units[0] == unit => Step::Literal { matched: 0 },
                            Matcher::Dfa(dfa) if !in_pair && start.may_begin_with(unit, context) => {
                                match DfaRun::new(dfa, previous) {
                                    Some(run) => Step::Dfa(run),
                                    None => continue,
                                }
                            }
                            _ => continue,
                        }
                    }
                    Compiled::JsonCall { .. }
                        if (at_line_start(previous) || self.call_may_begin_at == Some(at))
                            && CALL_BEGINS.contains(&unit) =>
                    {
                        Step::Call(CallPhase::Indent)
                    }
                    Compiled::JsonCall { .. } => continue,
                };
                let slot = self.first_slot + self.slots.len();
                self.slots.push_back(Slot { start: at, pattern, state: SlotState::Running });
                let mut run = Run { pattern, step, members: Members::One(Member::new(slot, at)) };
                if self.advance(general, &mut run, unit, at) {
                    self.runs.push(run);
                }
                // A thread that ends on its first unit without a match
                // leaves no slot.
                if self.slots.back().is_some_and(|slot| slot.state == SlotState::Gone) {
                    self.slots.pop_back();
                    self.gone -= 1;
                }
            }
        }
        self.previous = Some(unit);
        self.gather(at);
        while let Some(&Slot { start, pattern, state: SlotState::Done { end } }) = self.first() {
            self.strip(pattern, start, end, StripReason::Match, log, out);
        }
        if self.first().is_none() {
            let to = self.base + self.held.len();
            self.release_to(to, out);
        }
        if self.gone >= GONE_TO_DROP && 2 * self.gone >= self.slots.len() {
            self.drop_gone();
        }
    }

    /// Moves the threads of runs that have one future onto one run: runs
    /// of one pattern in the same state, and a JSON run whose value began
    /// inside another's and reads on as it does.
    fn gather(&mut self, at: usize) {
        // Only runs of one pattern can join: each run is compared with the
        // earlier runs of its pattern, found through `last_of` (the latest
        // run seen of each pattern) and `previous_of` (for each run, the run
        // of its pattern before it).
        let mut last_of = std::mem::take(&mut self.last_of);
        let mut previous_of = std::mem::take(&mut self.previous_of);
        previous_of.clear();
        let mut index = 0;
        while index < self.runs.len() {
            count_work!(self.work, 1);
            let pattern = self.runs[index].pattern;
            if last_of.len() <= pattern {
                last_of.resize(pattern + 1, usize::MAX);
            }
            let mut joined = false;
            let mut earlier = last_of[pattern];
            while earlier != usize::MAX {
                count_work!(self.work, 1);
                let (a, b) = (&self.runs[earlier], &self.runs[index]);
                // (into, from): the run that carries on, and the one whose
                // threads move onto it.
                let pair = if a.step.same_future(&b.step) {
                    // The fewer threads move.
                    if a.members.len() >= b.members.len() {
                        Some((earlier, index))
                    } else {
                        Some((index, earlier))
                    }
                } else {
                    match (a.step.scan(), b.step.scan()) {
                        (Some(outer), Some(inner)) if inner.nests_in(outer) => Some((earlier, index)),
                        (Some(inner), Some(outer)) if inner.nests_in(outer) => Some((index, earlier)),
                        _ => None,
                    }
                };
                if let Some((into, from)) = pair {
                    if self.join(into, from, at) {
                        // The run that carries on takes the earlier place;
                        // the last run, not yet seen, takes this one.
                        if into == index {
                            self.runs.swap(earlier, index);
                        }
                        let mut absorbed = self.runs.swap_remove(index);
                        self.end(&mut absorbed);
                        self.keep_first_alone(earlier);
                        joined = true;
                        break;
                    }
                }
                earlier = previous_of[earlier];
            }
            if !joined {
                previous_of.push(last_of[pattern]);
                last_of[pattern] = index;
                index += 1;
            }
        }
        for run in &self.runs {
            last_of[run.pattern] = usize::MAX;
        }
        self.last_of = last_of;
        self.previous_of = previous_of;
    }

    /// When run `index` carries the first slot, drops the threads on it
    /// that end with the first one (each where it does, or none): no strip
    /// can end between the first slot and them, so the first one's match,
    /// if it comes, is stripped before theirs and covers them (as the
    /// flush covers them if it does not come). That keeps an open span
    /// that opens again and again (a million unclosed openers) from
    /// holding a thread per opener. On a JSON run those are the threads
    /// whose values began as deep as the first one's (a value nested in it
    /// ends before it, and is a match of its own). Not so for a DFA's
    /// threads with matches to fall back on, nor for JSON calls, whose
    /// shape check reads each call's own text.
    fn keep_first_alone(&mut self, index: usize) {
        let first = self.first().is_some().then_some(self.first_slot);
        let run = &self.runs[index];
        let Some(&kept) = run.members.front() else { return };
        if !run.step.ends_as_one() || Some(kept.slot) != first {
            return;
        }
        // (Bases are in order, so the threads with the first's are next to it.)
        let with_it = run.members.iter().skip(1).take_while(|member| member.base == kept.base).count();
        count_work!(self.work, with_it);
        let members = &mut self.runs[index].members;
        members.pop_front();
        let gone: Vec<usize> =
            (0..with_it).filter_map(|_| members.pop_front()).map(|member| member.slot).collect();
        members.push_front(kept);
        for slot in gone {
            self.set(slot, SlotState::Gone);
        }
    }

    /// Moves the threads of run `from` onto run `into`, in order, after
    /// unit `at`: a thread from a DFA run keeps the match it falls back on
    /// there, one from a JSON run counts its base in `into`'s containers.
    /// Says whether they moved: not if JSON threads would then be out of
    /// order by base.
    fn join(&mut self, into: usize, from: usize, at: usize) -> bool {
        let offset = match (self.runs[into].step.scan(), self.runs[from].step.scan()) {
            (Some(outer), Some(inner)) => outer.depth() - inner.depth(),
            _ => 0,
        };
        // (A run that does not move after all keeps its threads, and loses
        // only ends, which are there to be skipped.)
        let ends = match &mut self.runs[from].step {
            Step::CallValue(value) => std::mem::take(&mut value.ends),
            _ => HashMap::new(),
        };
        if let Step::CallValue(value) = &mut self.runs[into].step {
            count_work!(self.work, ends.len());
            value.ends.extend(ends);
        }
        let json = self.runs[into].step.scan().is_some();
        let mut staying = self.queue_of(into);
        let moving = &self.runs[from];
        let carried = |member: &Member| {
            let mut member = *member;
            if let Step::Dfa(run) | Step::EndDfa(run) = &moving.step {
                member.pending = run.fallback(&member);
                member.since = at + 1;
            }
            member.base += offset;
            member
        };
        count_work!(self.work, moving.members.len());
        let (Some(first), Some(last)) =
            (moving.members.front().map(carried), moving.members.back().map(carried))
        else {
            self.runs[into].members = Members::Many(staying);
            return true;
        };
        let joined =
            if staying.back().is_none_or(|back| back.slot < first.slot && (!json || back.base <= first.base))
            {
                staying.extend(moving.members.iter().map(carried));
                true
            } else if staying
                .front()
                .is_some_and(|front| last.slot < front.slot && (!json || last.base <= front.base))
            {
                for member in moving.members.iter().rev() {
                    staying.push_front(carried(member));
                }
                true
            } else {
                // Interleaved: merged in full.
                count_work!(self.work, staying.len());
                let mut merged = VecDeque::with_capacity(staying.len() + moving.members.len());
                let mut moved = moving.members.iter().map(carried).peekable();
                let mut stayed = staying.iter().copied().peekable();
                let mut in_order = true;
                loop {
                    let next = match (stayed.peek(), moved.peek()) {
                        (Some(a), Some(b)) if a.slot < b.slot => stayed.next(),
                        (Some(_), Some(_)) | (None, Some(_)) => moved.next(),
                        (Some(_), None) => stayed.next(),
                        (None, None) => break,
                    };
                    let Some(next) = next else { break };
                    if json && merged.back().is_some_and(|back: &Member| back.base > next.base) {
                        in_order = false;
                        break;
                    }
                    merged.push_back(next);
                }
                if in_order {
                    staying = merged;
                }
                in_order
            };
        self.runs[into].members = Members::Many(staying);
        joined
    }

    /// Advances `run` over the unit at `at`, settling the threads it
    /// decides; says whether it goes on (if not, its threads are settled
    /// and gone from it).
    fn advance(&mut self, general: &General, run: &mut Run, unit: u16, at: usize) -> bool {
        count_work!(self.work, 1);
        let compiled = &general.patterns[run.pattern];
        if let (Step::Call(CallPhase::Trailing { .. }), b'{' | b'[') = (&run.step, unit.min(0xFF) as u8) {
            self.call_may_begin_at = Some(at);
        }
        match advance_step(&mut run.step, compiled, unit, at) {
            Says::Going => true,
            Says::Done(end) => {
                self.settle_all(run, SlotState::Done { end });
                self.end(run)
            }
            Says::Dead => {
                self.settle_all(run, SlotState::Gone);
                self.end(run)
            }
            Says::FallBack => {
                count_work!(self.work, run.members.len());
                if let Step::Dfa(dfa_run) | Step::EndDfa(dfa_run) = &run.step {
                    for member in run.members.iter() {
                        let state = match dfa_run.fallback(member) {
                            Some(end) => SlotState::Done { end },
                            None => SlotState::Gone,
                        };
                        self.set(member.slot, state);
                    }
                }
                self.end(run)
            }
            Says::Opened(end) => {
                self.open_from(general, run, end);
                self.end(run)
            }
            Says::Closed { opened } => {
                let depth = run.step.scan().map_or(0, JsonScan::depth);
                let tool_names = match compiled {
                    Compiled::JsonCall { tool_names } => tool_names.as_deref(),
                    _ => None,
                };
                if let Step::CallValue(value) = &mut run.step {
                    // Containers this deep below the first call's value are
                    // what the shape checks skip.
                    let first_base = run.members.front().map_or(0, |member| member.base);
                    if depth > first_base + json::OUTLINE_DEPTH {
                        value.ends.insert(opened, at + 1);
                    }
                    if self.drop_unclosed && unit == u16::from(b'}') {
                        self.object_closed(value, &mut run.members, tool_names, opened, depth, at);
                    }
                }
                while run.members.back().is_some_and(|member| member.base == depth) {
                    let Some(member) = run.members.pop_back() else { break };
                    let value = match &run.step {
                        Step::CallValue(value) => Some(&**value),
                        _ => None,
                    };
                    self.value_done(value, run.pattern, tool_names, member, at);
                }
                !run.members.is_empty() || self.end(run)
            }
            Says::Value { from, fenced } => {
                for member in run.members.iter_mut() {
                    member.value_from = from;
                    member.fenced = fenced;
                }
                true
            }
        }
    }

    /// A run that has settled its threads ends; its queue, if it has one,
    /// is kept for another run. Says it does not go on.
    fn end(&mut self, run: &mut Run) -> bool {
        let members = std::mem::take(&mut run.members);
        self.recycle(members);
        false
    }

    /// Keeps the queue of `members`, if they had one, for another run.
    fn recycle(&mut self, members: Members) {
        if let Members::Many(mut queue) = members {
            if self.spare_members.len() < SPARE_QUEUES && queue.capacity() <= SPARE_CAPACITY {
                queue.clear();
                self.spare_members.push(queue);
            }
        }
    }

    /// The threads of run `index` in a queue (a spare one, if they were
    /// not in one), taken from the run.
    fn queue_of(&mut self, index: usize) -> VecDeque<Member> {
        match std::mem::take(&mut self.runs[index].members) {
            Members::Many(queue) => queue,
            members => {
                let mut queue = self.spare_members.pop().unwrap_or_default();
                queue.extend(members.iter().copied());
                queue
            }
        }
    }

    /// The value of `member`, a thread on a JSON run, closed at `at`: a
    /// JSON pattern's match is done (`value` is `None`); a bare call goes on
    /// to what must follow it if the value is a call.
    fn value_done(
        &mut self,
        value: Option<&CallValue>,
        pattern: usize,
        tool_names: Option<&[String]>,
        member: Member,
        at: usize,
    ) {
        count_work!(self.work, 1);
        let Some(value) = value else {
            return self.set(member.slot, SlotState::Done { end: at + 1 });
        };
        if !self.is_call(value, tool_names, member.value_from, at) {
            return self.set(member.slot, SlotState::Gone);
        }
        let phase = if member.fenced { CallPhase::Closing(0) } else { CallPhase::Trailing { end: at + 1 } };
        self.runs.push(Run { pattern, step: Step::Call(phase), members: Members::One(member) });
    }

    /// An object that began at `opened` closed at `at`, `depth` containers
    /// deep in `value`: the calls whose values hold it at most two levels
    /// down (the value itself, its members, theirs) show a call if it is
    /// one, as `json::shows_tool_call` reads a prefix.
    fn object_closed(
        &mut self,
        value: &CallValue,
        members: &mut Members,
        tool_names: Option<&[String]>,
        opened: usize,
        depth: usize,
        at: usize,
    ) {
        // The bases run up to `depth` at most, in order.
        let near = members.iter().rev().take_while(|member| member.base + 2 >= depth).count();
        let unsure = members.iter().rev().take(near).any(|member| !member.shows_call);
        if unsure && self.is_call(value, tool_names, opened, at) {
            members.iter_mut().rev().take(near).for_each(|member| member.shows_call = true);
        }
    }

    /// Whether the text from `from` to `at` (one container, whitespace
    /// before it, that `value`'s scan accepted) is a tool call by its
    /// shape, skipping the inner containers whose ends `value` knows.
    fn is_call(&mut self, value: &CallValue, tool_names: Option<&[String]>, from: usize, at: usize) -> bool {
        let text = &self.held[from - self.base..at + 1 - self.base];
        let skipped = std::cell::Cell::new(0);
        let ends = |offset: usize| {
            let end = value.ends.get(&(from + offset)).map(|end| end - from);
            skipped.set(skipped.get() + end.map_or(0, |end| end.saturating_sub(offset)));
            end
        };
        let is_call = json::is_scanned_tool_call(text, tool_names, &ends);
        // (What the check read, at most: the text less what it skipped.)
        count_work!(self.work, text.len().saturating_sub(skipped.get()));
        is_call
    }

    /// The regular-expression start of `run`'s threads is over: each one
    /// whose start matched (all at `end`, or each at the match it falls
    /// back on) reads on from there, over the units already read.
    fn open_from(&mut self, general: &General, run: &Run, end: Option<usize>) {
        let Step::Dfa(dfa_run) = &run.step else { return self.settle_all(run, SlotState::Gone) };
        // Threads whose starts end at one place have one future from there.
        let mut by_end: Vec<(usize, Members)> = Vec::new();
        for member in run.members.iter() {
            match end.or_else(|| dfa_run.fallback(member)) {
                None => self.set(member.slot, SlotState::Gone),
                Some(end) => match by_end.iter_mut().find(|(at, _)| *at == end) {
                    Some((_, members)) => members.push_back(Member { since: end, pending: None, ..*member }),
                    None => by_end.push((end, Members::One(Member { since: end, pending: None, ..*member }))),
                },
            }
        }
        let compiled = &general.patterns[run.pattern];
        for (end, members) in by_end {
            // The start is at least one unit long and began at or after
            // `base`, so the unit before `end` is held.
            let before = Some(self.held[end - 1 - self.base]);
            let step = match opened(compiled, end, before) {
                Next::Step(step) => step,
                Next::Done(end) => {
                    members.iter().for_each(|member| self.set(member.slot, SlotState::Done { end }));
                    continue;
                }
                Next::Dead => {
                    members.iter().for_each(|member| self.set(member.slot, SlotState::Gone));
                    continue;
                }
            };
            let mut rest = Run { pattern: run.pattern, step, members };
            let mut going = true;
            for at in end..self.base + self.held.len() {
                going = self.advance(general, &mut rest, self.held[at - self.base], at);
                if !going {
                    break;
                }
            }
            if going {
                self.runs.push(rest);
            }
        }
    }
}

/// Where a feed's output goes. While what it released is the chunk's
/// first units, in order and uncut, it is only counted: the chunk is lent,
/// not copied, and the caller emits `chunk[..lent]`. Anything else (a
/// strip, text held from an earlier feed) writes out what was lent first,
/// and from then on the output is copied.
pub(crate) struct Sink<'a> {
    out: &'a mut Vec<u16>,
    chunk: &'a [u16],
    /// The stream position of `chunk[0]`.
    chunk_at: usize,
    /// How many units of the chunk were released uncopied; `None` once the
    /// output is written out.
    lent: Option<usize>,
}

impl Sink<'_> {
    /// Releases `units`, the stream's text from position `at`.
    fn extend(&mut self, at: usize, units: &[u16]) {
        if let Some(lent) = self.lent {
            if at == self.chunk_at + lent && lent + units.len() <= self.chunk.len() {
                self.lent = Some(lent + units.len());
                return;
            }
        }
        self.written().extend_from_slice(units);
    }

    /// The output, with what was lent written out.
    fn written(&mut self) -> &mut Vec<u16> {
        if let Some(lent) = self.lent.take() {
            self.out.extend_from_slice(&self.chunk[..lent]);
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::filter::presets::special_token_patterns;
    use crate::filter::{Part, Pattern, Registry, ScaffoldingFilter};

    /// One row: a registry, a text, what comes out and what is stripped
    /// (span, pattern), fed whole and one unit at a time.
    struct Case {
        name: &'static str,
        patterns: fn() -> Vec<Pattern>,
        text: &'static str,
        out: &'static str,
        strips: &'static [(&'static str, usize)],
    }

    /// A thread with the same future as an earlier one of its pattern is
    /// carried on the earlier one's run, not dropped: the earlier one may
    /// lose to a match that ends before the later one begins, and then the
    /// later one is the match. Only threads that end with the first slot's
    /// are dropped, and a JSON value nested in the first one's is not one.
    const CASES: &[Case] = &[
        Case {
            name: "a shorter match at the earlier start ends before the later one",
            patterns: || vec![Pattern::token_of(Part::regex("<a(?:<b)?")), Pattern::span("<", ">")],
            text: "<a<c>",
            out: "",
            strips: &[("<a", 0), ("<c>", 1)],
        },
        Case {
            name: "a match before the earlier start ends between the two",
            patterns: || {
                vec![
                    Pattern::Json { start: Part::literal("#") },
                    Pattern::token("x<"),
                    Pattern::span("<", ">"),
                ]
            },
            text: "#[\"x<<c>",
            out: "#[\"",
            strips: &[("x<", 1), ("<c>", 2)],
        },
        Case {
            name: "a JSON value nested in the first one's is a match of its own",
            patterns: || vec![Pattern::Json { start: Part::literal("[") }],
            text: "[[{\"a\":1}",
            out: "[",
            strips: &[("[{\"a\":1}", 0)],
        },
        Case {
            name: "special tokens: a Llama 3 span after a JSON call, behind an open Gemma span",
            patterns: || special_token_patterns().into_iter().map(|pattern| pattern.to_pattern()).collect(),
            text: "<|tool_call>x<|python_tag|>{\"a\":1}<|python_tag|>b<|python_tag|>c<|eot_id|>",
            out: "<|tool_call>x",
            strips: &[("<|python_tag|>{\"a\":1}", 3), ("<|python_tag|>b<|python_tag|>c<|eot_id|>", 4)],
        },
    ];

    #[test]
    fn a_thread_merged_into_an_earlier_one_keeps_its_place() {
        for case in CASES {
            let patterns = (case.patterns)();
            let registry = Arc::new(Registry::new(patterns.clone()).unwrap());
            assert!(!registry.is_literal(), "{}", case.name);
            let units: Vec<u16> = case.text.encode_utf16().collect();
            let whole = [units.clone()];
            let one_by_one: Vec<Vec<u16>> = units.iter().map(|&unit| vec![unit]).collect();
            for chunks in [&whole[..], &one_by_one[..]] {
                let mut filter = ScaffoldingFilter::with_registry(Arc::clone(&registry));
                let mut out = Vec::new();
                for chunk in chunks {
                    out.extend(filter.feed(chunk));
                }
                out.extend(filter.flush());
                assert_eq!(String::from_utf16_lossy(&out), case.out, "{}", case.name);
                let strips: Vec<(String, usize)> = filter
                    .strips()
                    .map(|strip| (String::from_utf16_lossy(strip.span), strip.pattern))
                    .collect();
                let expected: Vec<(String, usize)> =
                    case.strips.iter().map(|&(span, pattern)| (span.to_string(), pattern)).collect();
                assert_eq!(strips, expected, "{}", case.name);
            }
        }
    }

    /// A clean chunk goes on where it lies, through the tool stage and the
    /// engine both (the emitted slice is the chunk's own memory); a chunk
    /// with a cut, or one after a held partial token, is copied, and comes
    /// out right.
    #[test]
    fn a_clean_chunk_is_lent_and_a_cut_one_is_copied() {
        use crate::filter::{Options, Tool, Tools};
        let registry = Arc::new(
            Registry::new(special_token_patterns().into_iter().map(|p| p.to_pattern()).collect()).unwrap(),
        );
        let tools = Arc::new(Tools::new(vec![Tool::named("get_weather")]).unwrap());
        for with_tools in [false, true] {
            let mut filter = ScaffoldingFilter::with_tools(
                Arc::clone(&registry),
                Options::default(),
                with_tools.then(|| Arc::clone(&tools)),
            );
            let mut feed = |text: &str| {
                let chunk: Vec<u16> = text.encode_utf16().collect();
                let (lent, out) =
                    filter.feed_with(&chunk, |out| (out.as_ptr() == chunk.as_ptr(), out.to_vec()));
                (lent && !out.is_empty(), String::from_utf16_lossy(&out))
            };
            let clean = "The weather in Paris is mild; x < y holds.\n";
            assert_eq!(feed(clean), (true, clean.to_owned()), "tools: {with_tools}");
            assert_eq!(
                feed("Before <|eot_id|> after. "),
                (false, "Before  after. ".to_owned()),
                "tools: {with_tools}"
            );
            // A `<` at the end may begin a token: held, and released with
            // the next chunk, copied.
            assert_eq!(feed("So x <"), (true, "So x ".to_owned()), "tools: {with_tools}");
            assert_eq!(feed(" y holds."), (false, "< y holds.".to_owned()), "tools: {with_tools}");
            assert_eq!(feed(clean), (true, clean.to_owned()), "tools: {with_tools}");
        }
    }
}
