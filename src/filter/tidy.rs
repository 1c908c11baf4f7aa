//! The tidy stage: the whitespace a strip leaves where it cut, settled as
//! the text streams (under [`Options::tidy_whitespace`](super::Options::tidy_whitespace)).

/// Settles the whitespace a strip leaves where it cut, as the text streams.
///
/// Around each cut, the whitespace just before it (`left`) and just after
/// it (`right`) become one run: nothing at the start or the end of the
/// text; where either holds a line break, as many line breaks as the more
/// of the two (at most two: one blank line), then the next line's
/// indentation; otherwise one of them, so `"check.  Done"` loses one space.
/// Text with no cut beside it passes unchanged, whitespace and all. The
/// stage holds back trailing whitespace until it sees what follows.
#[derive(Debug)]
pub(crate) struct Tidy {
    left: Vec<u16>,
    right: Vec<u16>,
    after_cut: bool,
    /// Nothing but whitespace has come out yet.
    at_start: bool,
}

impl Default for Tidy {
    fn default() -> Self {
        Tidy { left: Vec::new(), right: Vec::new(), after_cut: false, at_start: true }
    }
}

const LF: u16 = b'\n' as u16;
const CR: u16 = b'\r' as u16;

fn is_tidy_space(unit: u16) -> bool {
    matches!(unit, 0x20 | 0x09 | LF | CR)
}

impl Tidy {
    /// Reads `text` with a cut before each position in `cuts` (ascending,
    /// up to `text.len()`), appending what is settled to `out`.
    pub(crate) fn apply(&mut self, text: &[u16], cuts: &[usize], out: &mut Vec<u16>) {
        let mut cuts = cuts.iter().peekable();
        for (at, &unit) in text.iter().enumerate() {
            while cuts.next_if(|&&cut| cut <= at).is_some() {
                self.cut();
            }
            if is_tidy_space(unit) {
                if self.after_cut { &mut self.right } else { &mut self.left }.push(unit);
            } else {
                self.settle(out, false);
                out.push(unit);
                self.at_start = false;
            }
        }
        if cuts.next().is_some() {
            self.cut();
        }
    }

    /// Appends the whitespace it holds back, in text order.
    pub(super) fn held_into(&self, held: &mut Vec<u16>) {
        held.extend_from_slice(&self.left);
        held.extend_from_slice(&self.right);
    }

    pub(super) fn held_len(&self) -> usize {
        self.left.len() + self.right.len()
    }

    /// Holding nothing, and no cut waiting for what follows it.
    pub(super) fn is_idle(&self) -> bool {
        self.held_len() == 0 && !self.after_cut
    }

    /// Ends the text.
    pub(crate) fn finish(&mut self, out: &mut Vec<u16>) {
        self.settle(out, true);
        *self = Tidy::default();
    }

    fn cut(&mut self) {
        if self.after_cut {
            // Two cuts with only whitespace between: one cut.
            let right = std::mem::take(&mut self.right);
            self.left = join(&self.left, &right);
        }
        self.after_cut = true;
    }

    fn settle(&mut self, out: &mut Vec<u16>, at_end: bool) {
        if !self.after_cut {
            out.append(&mut self.left);
            return;
        }
        let (left, right) = (std::mem::take(&mut self.left), std::mem::take(&mut self.right));
        self.after_cut = false;
        if !(self.at_start || at_end) {
            out.extend(join(&left, &right));
        }
    }
}

/// The whitespace before a cut and after it, as one run (see [`Tidy`]).
fn join(left: &[u16], right: &[u16]) -> Vec<u16> {
    let breaks = |run: &[u16]| run.iter().filter(|&&unit| unit == LF).count();
    let lines = breaks(left).max(breaks(right)).min(2);
    if lines == 0 {
        return if left.is_empty() { right } else { left }.to_vec();
    }
    let crlf = left.windows(2).chain(right.windows(2)).any(|pair| pair == [CR, LF]);
    let mut run = Vec::new();
    for _ in 0..lines {
        if crlf {
            run.push(CR);
        }
        run.push(LF);
    }
    // The next line's indentation: what follows the last line break.
    let after_break = |run: &[u16]| run.iter().rposition(|&unit| unit == LF).map(|at| run[at + 1..].to_vec());
    let indent = after_break(right).unwrap_or_else(|| {
        if after_break(left).is_some() {
            right.to_vec()
        } else {
            Vec::new()
        }
    });
    run.extend(indent.into_iter().filter(|&unit| unit != CR));
    run
}
