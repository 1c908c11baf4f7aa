//! A direct transcription of the reference filter over UTF-16 units, for
//! the tests to compare against. It keeps the reference's shape on purpose
//! (leftmost match, remove, rescan; then the hold rule), quadratic cost
//! included, and takes a pattern list so that custom registries can be
//! checked the same way. With the default patterns it is the reference.

use super::registry::{find, Pattern};

pub struct ReferenceFilter {
    patterns: Vec<Pattern>,
    pending: Vec<u16>,
    pub stripped_chars: usize,
    pub stripped_spans: Vec<Vec<u16>>,
}

fn find_from(haystack: &[u16], needle: &[u16], from: usize) -> Option<usize> {
    if from > haystack.len() {
        return None;
    }
    find(&haystack[from..], needle).map(|at| from + at)
}

impl ReferenceFilter {
    pub fn new(patterns: Vec<Pattern>) -> Self {
        ReferenceFilter {
            patterns,
            pending: Vec::new(),
            stripped_chars: 0,
            stripped_spans: Vec::new(),
        }
    }

    pub fn feed(&mut self, chunk: &[u16]) -> Vec<u16> {
        if chunk.is_empty() {
            return Vec::new();
        }
        let mut buf = std::mem::take(&mut self.pending);
        buf.extend_from_slice(chunk);
        let buf = self.strip_complete(buf);
        let hold = self.hold_index(&buf);
        self.pending = buf[hold..].to_vec();
        buf[..hold].to_vec()
    }

    pub fn flush(&mut self) -> Vec<u16> {
        std::mem::take(&mut self.pending)
    }

    /// The match a regex search of one pattern finds: the leftmost start
    /// where it matches (for a span, the first start has an end after it
    /// whenever any start does), ending at the first end after the start.
    fn search(pattern: &Pattern, buf: &[u16]) -> Option<(usize, usize)> {
        match pattern {
            Pattern::Span { start, end } => {
                let s = find(buf, start)?;
                let e = find_from(buf, end, s + start.len())?;
                Some((s, e + end.len()))
            }
            Pattern::Token { literal } => find(buf, literal).map(|s| (s, s + literal.len())),
        }
    }

    fn leftmost_match(&self, buf: &[u16]) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for pattern in &self.patterns {
            if let Some(found) = Self::search(pattern, buf) {
                if best.is_none_or(|b| found.0 < b.0) {
                    best = Some(found);
                }
            }
        }
        best
    }

    fn strip_complete(&mut self, mut buf: Vec<u16>) -> Vec<u16> {
        while let Some((start, end)) = self.leftmost_match(&buf) {
            self.stripped_chars += end - start;
            self.stripped_spans.push(buf[start..end].to_vec());
            buf.drain(start..end);
        }
        buf
    }

    fn hold_index(&self, buf: &[u16]) -> usize {
        if buf.is_empty() {
            return 0;
        }
        let mut hold = buf.len();
        let mut openings: Vec<&[u16]> = Vec::new();
        for pattern in &self.patterns {
            match pattern {
                Pattern::Span { start, end } => {
                    openings.push(start);
                    if let Some(s) = find(buf, start) {
                        if find_from(buf, end, s + 1).is_none() {
                            hold = hold.min(s);
                        }
                    }
                }
                Pattern::Token { literal } => openings.push(literal),
            }
        }
        let max_opening = openings.iter().map(|o| o.len()).max().unwrap_or(0);
        for k in (1..=buf.len().min(max_opening.saturating_sub(1))).rev() {
            let suffix = &buf[buf.len() - k..];
            if openings
                .iter()
                .any(|o| k < o.len() && o.starts_with(suffix))
            {
                hold = hold.min(buf.len() - k);
                break;
            }
        }
        hold
    }
}
