//! The automata of the general engine's threads (`threads`). A run
//! carries every thread of one pattern whose automaton stands in one
//! state, so that a unit steps it once however many threads it carries;
//! each thread keeps on it only what sets it apart (its place in the
//! order, the match it falls back on, where its JSON value began).

use std::collections::{HashMap, VecDeque};

use regex_automata::util::primitives::StateID;

use super::compile::{Compiled, EndMatcher, Matcher};
use crate::filter::json::{self, JsonScan};
use crate::filter::regex::{self as re, Dfa};

/// A DFA fed one code point at a time from UTF-16 units (a high surrogate
/// waits for the unit after it), shared by the threads of its pattern that
/// stand in one state.
///
/// Those threads differ only in the match each falls back on if the run
/// finds no longer one: a thread keeps its own ([`Member::pending`]), and
/// every match the run finds from the thread's [`Member::since`] on
/// replaces it. Whether the threads have a match to fall back on is the
/// same for all of them (`pending`), because it decides when the run is
/// over.
#[derive(Clone, Debug)]
pub(super) struct DfaRun {
    state: StateID,
    /// A high surrogate read but not yet fed, and its position.
    high: Option<(u16, usize)>,
    pending: bool,
    /// The latest match the run found: where it ends, and the unit that
    /// showed it.
    latest: Option<(usize, usize)>,
}

/// What a DFA run says after a unit.
pub(super) enum DfaSays {
    Going,
    /// No longer match can come: each thread ends at the match it falls
    /// back on, if it has one.
    Over,
    /// Every thread's match ends here, whatever follows.
    EndsAt(usize),
}

impl DfaRun {
    pub(super) fn new(dfa: &Dfa, previous: Option<u16>) -> Option<Self> {
        let state = dfa.start(re::look_behind(previous))?;
        Some(DfaRun { state, high: None, pending: false, latest: None })
    }

    /// Feeds the unit at `at`.
    fn push(&mut self, dfa: &Dfa, unit: u16, at: usize) -> DfaSays {
        let mut buffer = [0u8; 4];
        if let Some((high, high_at)) = self.high.take() {
            if is_low(unit) {
                let code_point = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                return self.feed(dfa, re::utf8(code_point, &mut buffer), high_at, at + 1, at);
            }
            if let said @ (DfaSays::Over | DfaSays::EndsAt(_)) =
                self.feed(dfa, re::utf8(0xFFFD, &mut buffer), high_at, at, at)
            {
                return said;
            }
        }
        if is_high(unit) {
            self.high = Some((unit, at));
            return DfaSays::Going;
        }
        self.feed(dfa, re::utf8(u32::from(unit), &mut buffer), at, at + 1, at)
    }

    /// Feeds one code point that spans `[from, to)`, read at unit `at`.
    fn feed(&mut self, dfa: &Dfa, bytes: &[u8], from: usize, to: usize, at: usize) -> DfaSays {
        if dfa.step(&mut self.state, bytes) {
            self.pending = true;
            self.latest = Some((from, at));
        }
        if dfa.is_dead(self.state) || (self.pending && dfa.is_spent(self.state)) {
            return DfaSays::Over;
        }
        if dfa.ends_here(self.state) {
            return DfaSays::EndsAt(to);
        }
        DfaSays::Going
    }

    /// The end of the text, at `end`.
    pub(super) fn finish(&mut self, dfa: &Dfa, end: usize) -> DfaSays {
        if let Some((_, high_at)) = self.high.take() {
            let mut buffer = [0u8; 4];
            if let said @ (DfaSays::Over | DfaSays::EndsAt(_)) =
                self.feed(dfa, re::utf8(0xFFFD, &mut buffer), high_at, end, end)
            {
                return said;
            }
        }
        if dfa.matches_at_end(self.state) {
            return DfaSays::EndsAt(end);
        }
        DfaSays::Over
    }

    /// Where `member`'s match ends if the run finds no longer one.
    pub(super) fn fallback(&self, member: &Member) -> Option<usize> {
        match self.latest {
            Some((end, found)) if found >= member.since => Some(end),
            _ => member.pending,
        }
    }

    /// Whether two runs have one future: one state, the same surrogate
    /// waiting, and a match to fall back on for both or neither.
    fn same_future(&self, other: &DfaRun) -> bool {
        self.state == other.state
            && self.high.map(|high| high.0) == other.high.map(|high| high.0)
            && self.pending == other.pending
    }
}

/// Where a JSON call stands outside its value (inside it, the call's
/// thread is on a [`Step::CallValue`] run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CallPhase {
    /// Spaces or tabs at the start of the line.
    Indent,
    /// `n` backticks of a fence.
    Ticks(u8),
    /// `n` letters of the fence's `json`.
    Language(u8),
    /// The rest of the fence's line.
    FenceLine,
    /// After a fenced value: `n` backticks of the closing fence.
    Closing(u8),
    /// After the call, which ends at `end`: the rest of its line must be
    /// blank, or begin another call.
    Trailing { end: usize },
}

/// Where the automaton of one run stands.
#[derive(Clone, Debug)]
pub(super) enum Step {
    /// Inside a literal part (a token or a start): `matched` units so far.
    /// Never shared: a literal's state says where it began.
    Literal { matched: usize },
    /// Inside a regular-expression part (a token or a start).
    Dfa(DfaRun),
    /// A span's start is complete; looking for a literal end, `matched`
    /// units of it so far.
    EndLiteral { matched: usize },
    /// A span's start is complete; running "anything, then the end".
    EndDfa(DfaRun),
    /// A JSON pattern's start is complete; scanning the value.
    Json(JsonScan),
    /// A bare JSON call before or after its value. Never shared.
    Call(CallPhase),
    /// A bare JSON call's value.
    CallValue(Box<CallValue>),
}

/// The value of a bare JSON call, scanned once for all the calls on its
/// run (a call that begins inside another's value joins it), with what
/// their shape checks need to read each unit a bounded number of times.
#[derive(Clone, Debug)]
pub(super) struct CallValue {
    pub(super) scan: JsonScan,
    /// Where each open container begins, outermost first.
    opens: Vec<usize>,
    /// Where a closed container ends (one past its last unit), by where it
    /// begins: those deep enough below some call's value that its shape
    /// check skips them (see `json::is_scanned_tool_call`).
    pub(super) ends: HashMap<usize, usize>,
}

impl Step {
    /// Whether the match's opening part is complete, so that an unclosed
    /// match is an open span (which `openSpanAtEnd` and `maxHeld` settle).
    pub(super) fn is_open(&self) -> bool {
        matches!(self, Step::EndLiteral { .. } | Step::EndDfa(_) | Step::Json(_))
    }

    /// Whether two runs of one pattern have one future, so that one run
    /// can carry the threads of both.
    pub(super) fn same_future(&self, other: &Step) -> bool {
        match (self, other) {
            (Step::Dfa(a), Step::Dfa(b)) | (Step::EndDfa(a), Step::EndDfa(b)) => a.same_future(b),
            (Step::EndLiteral { matched: a }, Step::EndLiteral { matched: b }) => a == b,
            (Step::Json(a), Step::Json(b)) => a == b,
            (Step::CallValue(a), Step::CallValue(b)) => a.scan == b.scan,
            _ => false,
        }
    }

    /// Whether the threads on a run in this step end together: each where
    /// the others do, or none. Not so on a DFA run whose threads have
    /// matches to fall back on (each its own), nor for JSON calls, whose
    /// values are checked each on its own text.
    pub(super) fn ends_as_one(&self) -> bool {
        match self {
            Step::Dfa(run) | Step::EndDfa(run) => !run.pending,
            Step::EndLiteral { .. } | Step::Json(_) => true,
            Step::Literal { .. } | Step::Call(_) | Step::CallValue(_) => false,
        }
    }

    /// The scan of a JSON run.
    pub(super) fn scan(&self) -> Option<&JsonScan> {
        match self {
            Step::Json(scan) => Some(scan),
            Step::CallValue(value) => Some(&value.scan),
            _ => None,
        }
    }
}

/// One thread on a run: a possible match, and what it keeps apart from
/// the run's automaton.
#[derive(Clone, Copy, Debug)]
pub(super) struct Member {
    /// Its place in the order of matches (`Threads::slots`).
    pub(super) slot: usize,
    /// On a DFA run: the match it falls back on, unless the run finds one
    /// at unit `since` or later.
    pub(super) pending: Option<usize>,
    pub(super) since: usize,
    /// On a JSON run: how many of the run's containers were open before
    /// its value began. Its value ends when the run's depth is back to it.
    pub(super) base: usize,
    /// For a JSON call: where its value's text begins, and whether a fence
    /// must close it.
    pub(super) value_from: usize,
    pub(super) fenced: bool,
    /// For a JSON call, under `openSpanAtEnd: 'drop'`: whether its value
    /// already shows a call (as `json::shows_tool_call` would say of it),
    /// for the flush to read if the value never closes.
    pub(super) shows_call: bool,
}

impl Member {
    pub(super) fn new(slot: usize, at: usize) -> Self {
        Member { slot, pending: None, since: at, base: 0, value_from: at, fenced: false, shows_call: false }
    }
}

/// An automaton in progress and the threads on it, in the order of their
/// slots (on a JSON run, also the order of their bases).
///
/// Threads of one pattern whose automata stand in the same state have the
/// same future, so one run carries them all and a unit costs one step
/// however many they are. Each keeps its own place in the order, so what
/// is stripped is what stepping each thread on its own would strip.
#[derive(Debug)]
pub(super) struct Run {
    pub(super) pattern: usize,
    pub(super) step: Step,
    pub(super) members: Members,
}

/// The threads on a run. Most runs carry one (threads begin on most units
/// of an open span, and most end within a few), which is kept without a
/// queue of its own.
#[derive(Debug, Default)]
pub(super) enum Members {
    #[default]
    None,
    One(Member),
    Many(VecDeque<Member>),
}

impl Members {
    fn slices(&self) -> (&[Member], &[Member]) {
        match self {
            Members::None => (&[], &[]),
            Members::One(member) => (std::slice::from_ref(member), &[]),
            Members::Many(queue) => queue.as_slices(),
        }
    }

    pub(super) fn iter(&self) -> impl DoubleEndedIterator<Item = &Member> {
        let (first, second) = self.slices();
        first.iter().chain(second)
    }

    pub(super) fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut Member> {
        let (first, second): (&mut [Member], &mut [Member]) = match self {
            Members::None => (&mut [], &mut []),
            Members::One(member) => (std::slice::from_mut(member), &mut []),
            Members::Many(queue) => queue.as_mut_slices(),
        };
        first.iter_mut().chain(second)
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Members::None => 0,
            Members::One(_) => 1,
            Members::Many(queue) => queue.len(),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(super) fn front(&self) -> Option<&Member> {
        self.iter().next()
    }

    pub(super) fn back(&self) -> Option<&Member> {
        self.iter().next_back()
    }

    pub(super) fn pop_front(&mut self) -> Option<Member> {
        match self {
            Members::Many(queue) => queue.pop_front(),
            _ => match std::mem::take(self) {
                Members::One(member) => Some(member),
                _ => None,
            },
        }
    }

    pub(super) fn pop_back(&mut self) -> Option<Member> {
        match self {
            Members::Many(queue) => queue.pop_back(),
            _ => self.pop_front(),
        }
    }

    pub(super) fn push_front(&mut self, member: Member) {
        match self {
            Members::None => *self = Members::One(member),
            Members::One(first) => *self = Members::Many(VecDeque::from([member, *first])),
            Members::Many(queue) => queue.push_front(member),
        }
    }

    pub(super) fn push_back(&mut self, member: Member) {
        match self {
            Members::None => *self = Members::One(member),
            Members::One(first) => *self = Members::Many(VecDeque::from([*first, member])),
            Members::Many(queue) => queue.push_back(member),
        }
    }
}

/// What a unit did to a run.
pub(super) enum Says {
    Going,
    /// Every thread on the run is done; the matches end at `end`.
    Done(usize),
    /// No thread on the run can match.
    Dead,
    /// A DFA part is over: each thread ends at the match it falls back on.
    FallBack,
    /// A regular-expression start is over: each thread goes on to the rest
    /// of its pattern from where its start ended (all from `Some(end)`,
    /// else each from the match it falls back on).
    Opened(Option<usize>),
    /// The unit closed a JSON container, which began at `opened` (calls
    /// only): the threads whose value it was are done.
    Closed {
        opened: usize,
    },
    /// A JSON call's value begins (the run is now on it), at `from`.
    Value {
        from: usize,
        fenced: bool,
    },
}

/// What follows a pattern's opening part.
pub(super) enum Next {
    Step(Step),
    Done(usize),
    Dead,
}

/// The step after a pattern's opening part, which ended at `end` (the unit
/// before it was `before`): a token is done, a span looks for its end, a
/// JSON pattern scans its value.
pub(super) fn opened(compiled: &Compiled, end: usize, before: Option<u16>) -> Next {
    match compiled {
        Compiled::Span { end: EndMatcher::Literal { .. }, .. } => Next::Step(Step::EndLiteral { matched: 0 }),
        Compiled::Span { end: EndMatcher::Dfa(dfa), .. } => match DfaRun::new(dfa, before) {
            Some(run) => Next::Step(Step::EndDfa(run)),
            None => Next::Dead,
        },
        Compiled::Json { .. } => Next::Step(Step::Json(JsonScan::new())),
        Compiled::Token(_) | Compiled::JsonCall { .. } => Next::Done(end),
    }
}

/// Advances a run's automaton over the unit at `at`.
pub(super) fn advance_step(step: &mut Step, compiled: &Compiled, unit: u16, at: usize) -> Says {
    let next = match (&mut *step, compiled) {
        (
            Step::Literal { matched },
            Compiled::Token(Matcher::Literal(units))
            | Compiled::Span { start: Matcher::Literal(units), .. }
            | Compiled::Json { start: Matcher::Literal(units) },
        ) => {
            if units.get(*matched) != Some(&unit) {
                return Says::Dead;
            }
            *matched += 1;
            if *matched < units.len() {
                return Says::Going;
            }
            match opened(compiled, at + 1, Some(unit)) {
                Next::Step(next) => next,
                Next::Done(end) => return Says::Done(end),
                Next::Dead => return Says::Dead,
            }
        }
        (Step::Dfa(run), Compiled::Token(Matcher::Dfa(dfa))) => {
            return match run.push(dfa, unit, at) {
                DfaSays::Going => Says::Going,
                DfaSays::Over => Says::FallBack,
                DfaSays::EndsAt(end) => Says::Done(end),
            };
        }
        (
            Step::Dfa(run),
            Compiled::Span { start: Matcher::Dfa(dfa), .. } | Compiled::Json { start: Matcher::Dfa(dfa) },
        ) => {
            // (A DFA sees a match end one code point late, so the start may
            // have ended before this unit: the rest reads on from there.)
            return match run.push(dfa, unit, at) {
                DfaSays::Going => Says::Going,
                DfaSays::Over => Says::Opened(None),
                DfaSays::EndsAt(end) => Says::Opened(Some(end)),
            };
        }
        (
            Step::EndLiteral { matched },
            Compiled::Span { end: EndMatcher::Literal { units, fallback }, .. },
        ) => {
            let mut k = *matched;
            while k > 0 && units[k] != unit {
                k = fallback[k - 1];
            }
            if units[k] == unit {
                k += 1;
            }
            if k == units.len() {
                return Says::Done(at + 1);
            }
            *matched = k;
            return Says::Going;
        }
        (Step::EndDfa(run), Compiled::Span { end: EndMatcher::Dfa(dfa), .. }) => {
            return match run.push(dfa, unit, at) {
                DfaSays::Going => Says::Going,
                DfaSays::Over => Says::FallBack,
                DfaSays::EndsAt(end) => Says::Done(end),
            };
        }
        (Step::Json(scan), _) => {
            let depth = scan.depth();
            return match scan.step(unit) {
                json::Step::Invalid => Says::Dead,
                _ if scan.depth() < depth => Says::Closed { opened: 0 },
                _ => Says::Going,
            };
        }
        (Step::CallValue(value), _) => {
            let depth = value.scan.depth();
            if value.scan.step(unit) == json::Step::Invalid {
                return Says::Dead;
            }
            if value.scan.depth() > depth {
                value.opens.push(at);
            } else if value.scan.depth() < depth {
                return Says::Closed { opened: value.opens.pop().unwrap_or(at) };
            }
            return Says::Going;
        }
        (Step::Call(phase), _) => match advance_call(*phase, unit, at) {
            CallNext::Phase(next) => {
                *phase = next;
                return Says::Going;
            }
            CallNext::Value { scan, from, fenced } => {
                // (A value that opened on this unit opened here.)
                let opens = if scan.depth() > 0 { vec![at] } else { Vec::new() };
                *step = Step::CallValue(Box::new(CallValue { scan, opens, ends: HashMap::new() }));
                return Says::Value { from, fenced };
            }
            CallNext::Done(end) => return Says::Done(end),
            CallNext::Dead => return Says::Dead,
        },
        _ => return Says::Dead,
    };
    *step = next;
    Says::Going
}

/// What one unit makes of a JSON call outside its value.
enum CallNext {
    Phase(CallPhase),
    /// The value begins at `from`; `scan` has read what of it the unit is.
    Value {
        scan: JsonScan,
        from: usize,
        fenced: bool,
    },
    Done(usize),
    Dead,
}

/// Advances a JSON call outside its value over the unit at `at`.
fn advance_call(phase: CallPhase, unit: u16, at: usize) -> CallNext {
    const SPACE: u16 = b' ' as u16;
    const TAB: u16 = b'\t' as u16;
    const LF: u16 = b'\n' as u16;
    const CR: u16 = b'\r' as u16;
    const TICK: u16 = b'`' as u16;
    let is = |c: u8| unit == u16::from(c) || unit == u16::from(c.to_ascii_uppercase());
    let fence_opened = || CallNext::Value { scan: JsonScan::new(), from: at + 1, fenced: true };
    CallNext::Phase(match phase {
        // A call begins its line: an indented object is a value nested in
        // something larger (a payload example, a config), which every
        // reported bare call shows at the start of its line.
        CallPhase::Indent => match unit {
            TICK => CallPhase::Ticks(1),
            _ if unit == u16::from(b'{') || unit == u16::from(b'[') => {
                let mut scan = JsonScan::new();
                if scan.step(unit) != json::Step::More {
                    return CallNext::Dead;
                }
                return CallNext::Value { scan, from: at, fenced: false };
            }
            _ => return CallNext::Dead,
        },
        CallPhase::Ticks(n) if n < 3 => match unit {
            TICK => CallPhase::Ticks(n + 1),
            _ => return CallNext::Dead,
        },
        CallPhase::Ticks(_) => match unit {
            SPACE | TAB | CR => CallPhase::FenceLine,
            LF => return fence_opened(),
            _ if is(b'j') => CallPhase::Language(1),
            _ => return CallNext::Dead,
        },
        CallPhase::Language(n) if n < 4 => {
            if !is(b"json"[usize::from(n)]) {
                return CallNext::Dead;
            }
            CallPhase::Language(n + 1)
        }
        CallPhase::Language(_) | CallPhase::FenceLine => match unit {
            SPACE | TAB | CR => CallPhase::FenceLine,
            LF => return fence_opened(),
            _ => return CallNext::Dead,
        },
        CallPhase::Closing(n) => match unit {
            SPACE | TAB | CR | LF if n == 0 => CallPhase::Closing(0),
            TICK if n == 2 => CallPhase::Trailing { end: at + 1 },
            TICK => CallPhase::Closing(n + 1),
            _ => return CallNext::Dead,
        },
        CallPhase::Trailing { end } => match unit {
            SPACE | TAB => CallPhase::Trailing { end },
            // The line ends: the call stood on its own.
            LF | CR => return CallNext::Done(end),
            // Another call follows on the same line.
            _ if unit == u16::from(b'{') || unit == u16::from(b'[') => return CallNext::Done(end),
            _ => return CallNext::Dead,
        },
    })
}

pub(super) fn is_high(unit: u16) -> bool {
    (0xD800..0xDC00).contains(&unit)
}

pub(super) fn is_low(unit: u16) -> bool {
    (0xDC00..0xE000).contains(&unit)
}
