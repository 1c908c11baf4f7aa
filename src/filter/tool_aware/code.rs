//! Code: a fenced code block the stage is inside, read to its closing fence
//! with nothing in it tried; and the line the stage stands on (blank, or
//! inside inline code).

use super::text::ascii;

/// A fenced code block the stage is inside: nothing in it is read.
#[derive(Clone, Copy, Debug)]
pub(super) struct Code {
    /// The opening fence's backticks (counted so far, while `counting`).
    ticks: usize,
    counting: bool,
    /// Still on the opening fence's line.
    opening: bool,
    /// Only spaces, tabs and backticks so far on this line of the body.
    line_blank: bool,
    /// The backticks at this line's start.
    run: usize,
    /// Enough backticks for the closing fence: it closes if the line ends
    /// with nothing but spaces after them.
    pub(super) closing: bool,
}

/// What one unit did to a code block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CodeStep {
    /// The unit belongs to the block.
    Inside,
    /// The unit closed the block.
    Closed,
    /// Fewer than three backticks: no block; the unit is read afresh.
    NoFence,
}

impl Code {
    pub(super) fn new() -> Self {
        Code { ticks: 0, counting: true, opening: true, line_blank: false, run: 0, closing: false }
    }

    pub(super) fn step(&mut self, unit: u16) -> CodeStep {
        let byte = ascii(unit);
        if self.opening {
            if self.counting {
                if byte == Some(b'`') {
                    self.ticks += 1;
                    return CodeStep::Inside;
                }
                self.counting = false;
                if self.ticks < 3 {
                    return CodeStep::NoFence;
                }
            }
            if byte == Some(b'\n') {
                self.opening = false;
                self.line_blank = true;
                self.run = 0;
            }
            return CodeStep::Inside;
        }
        match byte {
            Some(b'\n') if self.closing => return CodeStep::Closed,
            Some(b'`' | b' ' | b'\t') if self.closing => {}
            Some(b'`') if self.line_blank => {
                self.run += 1;
                self.closing = self.run >= self.ticks;
            }
            Some(b'\n') => {
                self.line_blank = true;
                self.run = 0;
            }
            Some(b' ' | b'\t') if self.line_blank && self.run == 0 => {}
            _ => {
                self.line_blank = false;
                self.run = 0;
                self.closing = false;
            }
        }
        CodeStep::Inside
    }
}

/// Where the stage stands on the current line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Line {
    /// Only spaces and tabs so far (or a leak just ended).
    pub(super) blank: bool,
    /// An odd number of backticks so far: inside an inline code span.
    pub(super) quoted: bool,
    /// While `blank`: the columns its spaces and tabs take (a tab four),
    /// up to [`Line::CODE_INDENT`].
    pub(super) indent: u8,
}

impl Line {
    /// At the start of a line, or right after a leak.
    pub(super) const FRESH: Line = Line { blank: true, quoted: false, indent: 0 };
    /// Past the start of a line that began with prose.
    pub(super) const PROSE: Line = Line { blank: false, quoted: false, indent: 0 };
    /// The indentation of a markdown code block: a line indented so far is
    /// code, never a bare call's.
    pub(super) const CODE_INDENT: u8 = 4;

    pub(super) fn next(self, unit: u16) -> Line {
        if unit == u16::from(b'\n') {
            return Line::FRESH;
        }
        let blank = self.blank && (unit == u16::from(b' ') || unit == u16::from(b'\t'));
        let columns = if unit == u16::from(b'\t') { Line::CODE_INDENT } else { 1 };
        Line {
            blank,
            quoted: self.quoted != (unit == u16::from(b'`')),
            indent: if blank {
                self.indent.saturating_add(columns).min(Line::CODE_INDENT)
            } else {
                self.indent
            },
        }
    }
}
