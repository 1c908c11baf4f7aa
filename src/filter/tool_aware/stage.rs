//! The call stage: tool-aware detection between feeds. It emits what no
//! leak can take, holds a candidate until it is decided, and pays for
//! failed tries from the reading credit.

use std::cell::Cell;

use super::code::{Code, CodeStep, Line};
use super::reader::Reader;
use super::skip::{may_begin, partial_tail, plain_run, Ahead, Narrowed};
use super::text::{ascii, Stop};
use super::tools::{Tools, LONGEST_PREFIX};
use crate::filter::engine::general::compile::FEW;
use crate::filter::json::{JsonScan, Step};
use crate::filter::scan::Bitmap;
use crate::filter::strip::{OpenSpanPolicy, Options, StripLog, StripReason};

/// The reading credit each unit the stage passes earns, and what it starts
/// with (`docs/design.md`, "Tool-aware detection: streaming, and its
/// cost").
pub(crate) const CREDIT_PER_UNIT: i64 = 8;
const CREDIT_START: i64 = 1 << 16;

/// The stage's state between feeds.
#[derive(Debug)]
pub(crate) struct CallStage {
    /// Text not yet released: a candidate (or the start of one) and what
    /// came after it.
    held: Vec<u16>,
    /// The unit before `held`; `None` at the start of the stream.
    before: Option<u16>,
    /// The line up to `held`.
    line: Line,
    /// The reading credit at the start of `held`.
    credit: i64,
    /// `held.len()` when the candidate at its start last ran out of text;
    /// zero when no candidate waits.
    waiting: usize,
    /// Inside a JSON value that is not a call: its scan, so nothing inside
    /// it is tried as a leak.
    inside_json: Option<JsonScan>,
    /// Inside a fenced code block: its scan.
    code: Option<Code>,
    /// Where a held tail may begin in the text being read, with the line
    /// and credit there (kept to reuse its allocation).
    marks: Vec<(usize, Line, i64)>,
    /// Buffers reused by every read: the text narrowed to a byte a unit,
    /// and where its stops are (see [`Narrowed`]).
    narrowed: Narrowed,
    /// Whether the last feed read its chunk where it lies (so that
    /// `narrowed` is of that chunk).
    chunk_read: bool,
    /// Units stepped, skipped, narrowed and read by tries (tests only).
    #[cfg(test)]
    pub(crate) work: u64,
}

impl Default for CallStage {
    fn default() -> Self {
        CallStage {
            held: Vec::new(),
            before: None,
            line: Line::FRESH,
            credit: CREDIT_START,
            waiting: 0,
            inside_json: None,
            code: None,
            marks: Vec::new(),
            narrowed: Narrowed::default(),
            chunk_read: false,
            #[cfg(test)]
            work: 0,
        }
    }
}

impl CallStage {
    pub(crate) fn held(&self) -> &[u16] {
        &self.held
    }

    pub(crate) fn is_idle(&self) -> bool {
        self.held.is_empty() && self.inside_json.is_none()
    }

    pub(crate) fn is_span_open(&self) -> bool {
        self.waiting > 0
    }

    pub(crate) fn feed(
        &mut self,
        tools: &Tools,
        options: Options,
        log: &mut StripLog,
        chunk: &[u16],
        out: &mut Vec<u16>,
    ) {
        let lent = self.feed_lending(tools, options, log, chunk, out, None);
        out.extend_from_slice(&chunk[..lent]);
    }

    /// [`feed`](Self::feed), lending what it can: returns how many units
    /// from the chunk's start passed uncut. Those are not copied into
    /// `out`, and when there are any, nothing else is written there: what
    /// the stage passes is `chunk[..lent]`. A clean chunk, the common case,
    /// goes on to the engine where it lies. `begins`: units (narrowed) to
    /// mark in the chunk as it is read, for the next engine; when some
    /// units were lent, [`CallStage::chunk_begins`] says where they are.
    pub(crate) fn feed_lending(
        &mut self,
        tools: &Tools,
        options: Options,
        log: &mut StripLog,
        chunk: &[u16],
        out: &mut Vec<u16>,
        begins: Option<[u8; FEW]>,
    ) -> usize {
        let mut lent = 0;
        self.chunk_read = false;
        if self.held.is_empty() {
            // Nothing held: the chunk is read where it is, and only what
            // stays undecided is copied.
            let ran = self.run(tools, log, out, chunk, false, Source::Chunk { begins });
            self.chunk_read = true;
            lent = ran.lent;
            self.held.extend_from_slice(&chunk[ran.keep_from..]);
        } else {
            self.held.extend_from_slice(chunk);
            // A candidate that ran out is read again once the text has grown
            // by half: the re-reading sums to a constant factor of the text.
            if self.waiting == 0 || self.held.len() >= self.waiting + (self.waiting / 2).max(1) {
                self.run_held(tools, log, out, false);
            }
        }
        if let Some(most) = options.max_held {
            if self.waiting > 0 && self.held.len() > most.get() {
                // What was lent comes before what the settling writes.
                out.extend_from_slice(&chunk[..lent]);
                lent = 0;
                self.settle(options, log, StripReason::MaxHeld, out);
            }
        }
        lent
    }

    /// Where, in the chunk the last feed lent from, the units it was asked
    /// to mark are; `None` when it lent nothing or marked nothing.
    pub(crate) fn chunk_begins(&self) -> Option<&Bitmap> {
        if self.chunk_read {
            self.narrowed.begins()
        } else {
            None
        }
    }

    /// Ends the stream, and frees what the stage held. The end is the same
    /// under either [`OpenSpanPolicy`]: what reads as a call to an offered
    /// tool or a special token that the end cut off goes, and nothing else
    /// (`docs/scaffolding-filter.md`, "The end of the stream").
    pub(crate) fn flush(&mut self, tools: &Tools, log: &mut StripLog, out: &mut Vec<u16>) {
        self.run_held(tools, log, out, true);
        #[cfg(test)]
        let work = self.work;
        *self = CallStage::default();
        count_work!(self.work, work);
    }

    /// A candidate that outgrew `max_held`: stripped under the drop policy,
    /// else released as text.
    fn settle(&mut self, options: Options, log: &mut StripLog, reason: StripReason, out: &mut Vec<u16>) {
        let held = std::mem::take(&mut self.held);
        match options.open_span_at_end {
            OpenSpanPolicy::Drop => {
                log.record_call(&held, reason, Vec::new());
                log.cut_at(out.len());
            }
            OpenSpanPolicy::Emit => out.extend_from_slice(&held),
        }
        if let Some(&last) = held.last() {
            self.before = Some(last);
        }
        self.line = held.iter().fold(self.line, |line, &unit| line.next(unit));
        self.credit = self.credit.saturating_add(CREDIT_PER_UNIT.saturating_mul(held.len() as i64));
        self.waiting = 0;
    }

    /// Steps the scan of a code block or a JSON value the reading is inside:
    /// `None` when it is inside neither, else whether the scan took `unit`
    /// (the scan ends either way when it is over).
    fn scan_inside(&mut self, unit: u16) -> Option<bool> {
        if let Some(code) = &mut self.code {
            let step = code.step(unit);
            if step != CodeStep::Inside {
                self.code = None;
            }
            return Some(step != CodeStep::NoFence);
        }
        let scan = self.inside_json.as_mut()?;
        let step = scan.step(unit);
        if step != Step::More {
            self.inside_json = None;
        }
        Some(step != Step::Invalid)
    }

    /// Reads the held text as far as it decides, and keeps the rest;
    /// `complete`: nothing more will come.
    fn run_held(&mut self, tools: &Tools, log: &mut StripLog, out: &mut Vec<u16>, complete: bool) {
        let mut held = std::mem::take(&mut self.held);
        let ran = self.run(tools, log, out, &held, complete, Source::Held);
        held.drain(..ran.keep_from);
        self.held = held;
    }

    /// Reads `text` (what the stage holds, then the new text; or the chunk
    /// where it lies, see [`Source`]) as far as it decides, and returns
    /// where the undecided rest begins; `complete`: nothing more will come.
    fn run(
        &mut self,
        tools: &Tools,
        log: &mut StripLog,
        out: &mut Vec<u16>,
        text: &[u16],
        complete: bool,
        source: Source,
    ) -> Ran {
        self.waiting = 0;
        let mut emitted = 0;
        let mut at = 0;
        let mut keep_from = None;
        let mut line = self.line;
        let mut credit = self.credit;
        let far = Cell::new(0);
        let named = Cell::new(false);
        // Where a held tail may begin, with the line and credit there.
        let tail_from = text.len().saturating_sub(tools.longest.max(LONGEST_PREFIX));
        let mut marks = std::mem::take(&mut self.marks);
        marks.clear();
        // The next offered name or distinctive prefix (see `plain_run`) is
        // searched in the text narrowed to a byte a unit, the next stop in
        // a bitmap of them.
        let mut narrowed = std::mem::take(&mut self.narrowed);
        let begins = match source {
            Source::Chunk { begins } => begins,
            Source::Held => None,
        };
        let _read = narrowed.read(text, begins);
        count_work!(self.work, _read);
        let mut ahead = Ahead::default();
        while at < text.len() {
            count_work!(self.work, 1);
            let unit = text[at];
            // Inside a code block, or a JSON value that is not a call, their
            // own scans read the unit; the unit that ends one without being
            // part of it is read afresh.
            if let Some(taken) = self.scan_inside(unit) {
                if taken {
                    line = line.next(unit);
                    credit = credit.saturating_add(CREDIT_PER_UNIT);
                    at += 1;
                }
                continue;
            }
            let before = if at == 0 { self.before } else { Some(text[at - 1]) };
            if !line.blank && at < tail_from {
                // Plain prose: skipped in one go, as the unit-by-unit path
                // below would pass it (nothing tried, the line unchanged or,
                // past a line break, begun with prose).
                let (plain, crossed) = plain_run(tools, text, &narrowed, at, tail_from, before, &mut ahead);
                count_work!(self.work, plain);
                if plain > 0 {
                    credit = credit.saturating_add(CREDIT_PER_UNIT.saturating_mul(plain as i64));
                    at += plain;
                    if crossed {
                        line = Line::PROSE;
                    }
                    continue;
                }
            }
            if at >= tail_from {
                marks.push((at, line, credit));
            }
            let fence = unit == u16::from(b'`') && line.blank;
            if credit >= 0 && !line.quoted && may_begin(tools, text, at, before, line.blank) {
                far.set(at);
                let reader = Reader {
                    text,
                    tools,
                    complete,
                    blank: line.blank,
                    indented: line.indent >= Line::CODE_INDENT,
                    far: &far,
                    named: &named,
                };
                let leak = reader.leak(at);
                count_work!(self.work, far.get().saturating_sub(at));
                match leak {
                    Ok(leak) => {
                        // (A leak ends past its start and within the text.)
                        let end = leak.end.clamp(at + 1, text.len());
                        out.extend_from_slice(&text[emitted..at]);
                        log.record_call(&text[at..end], StripReason::Match, leak.calls);
                        log.cut_at(out.len());
                        credit = credit.saturating_add(CREDIT_PER_UNIT.saturating_mul((end - at) as i64));
                        emitted = end;
                        at = end;
                        line = Line::FRESH;
                        continue;
                    }
                    Err(Stop::More) if !complete => {
                        keep_from = Some(at);
                        self.waiting = text.len() - at;
                        break;
                    }
                    // (A complete text never runs out; were it to, the
                    // candidate is text.)
                    Err(_) => {
                        credit = credit.saturating_sub(far.get().saturating_sub(at) as i64);
                        // The end policy: a call to an offered tool, a
                        // special token, or a call's opening tag at a line's
                        // start, that the end cut off goes, under either
                        // `openSpanAtEnd`.
                        if complete
                            && (reader.cut_off_call(at)
                                || reader.cut_off_token(at)
                                || reader.cut_off_opener(at))
                        {
                            out.extend_from_slice(&text[emitted..at]);
                            log.record_call(&text[at..], StripReason::UnclosedAtEnd, Vec::new());
                            log.cut_at(out.len());
                            emitted = text.len();
                            at = text.len();
                            break;
                        }
                    }
                }
            }
            if fence {
                // A code block (or a backtick or two): its own scan reads it.
                self.code = Some(Code::new());
                continue;
            }
            if matches!(ascii(unit), Some(b'{' | b'[')) {
                let mut scan = JsonScan::new();
                if scan.step(unit) == Step::More {
                    self.inside_json = Some(scan);
                }
            }
            line = line.next(unit);
            credit = credit.saturating_add(CREDIT_PER_UNIT);
            at += 1;
        }
        // A name, `functions.` or a fence may have begun in the tail.
        let inside = self.code.is_some() || self.inside_json.is_some();
        let keep_from = match keep_from {
            Some(at) => at,
            None if complete || inside => text.len(),
            None => partial_tail(tools, text, emitted, &marks),
        }
        .max(emitted);
        if keep_from < text.len() && keep_from != at {
            if let Some(&(_, there, left)) = marks.iter().find(|&&(mark, _, _)| mark == keep_from) {
                line = there;
                credit = left;
            }
        }
        // Nothing cut: what passed is lent, not copied.
        let lent = if matches!(source, Source::Chunk { .. }) && emitted == 0 { keep_from } else { 0 };
        out.extend_from_slice(&text[emitted + lent..keep_from]);
        if keep_from > 0 {
            self.before = Some(text[keep_from - 1]);
        }
        self.line = line;
        self.credit = credit;
        self.marks = marks;
        self.narrowed = narrowed;
        Ran { keep_from, lent }
    }
}

/// What a read reads.
#[derive(Clone, Copy)]
enum Source {
    /// What the stage holds and the text after it, copied together.
    Held,
    /// The chunk where it lies: what is read with nothing cut from it is
    /// lent rather than copied into the output (see [`Ran`]), and `begins`,
    /// narrowed units, are marked in it for the next engine.
    Chunk { begins: Option<[u8; FEW]> },
}

/// What one read of a text decided.
struct Ran {
    /// Where the undecided rest begins.
    keep_from: usize,
    /// How many units from the text's start passed uncut and were lent
    /// rather than copied into the output; when there are any, nothing was
    /// written to it.
    lent: usize,
}
