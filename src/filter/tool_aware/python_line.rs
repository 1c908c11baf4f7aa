//! A bare pythonic call as a whole line: `get_weather(location="San
//! Francisco")`, with no wrapper, marker, token or list around it (IBM
//! Granite 3.3 and 4.0 H-Small write their calls so).
//!
//! Why it cannot fire on code or prose: the call must name an offered tool,
//! stand alone on its line (nothing but blanks before it, fewer than a
//! markdown code block's four columns, and nothing but blanks after its
//! closing parenthesis), and take only keyword arguments whose values are
//! literals (`k="v"`, `k=3`, `k=True`, lists of them), at least one. What
//! stays, and why:
//! - a call in a fenced code block or inline code: the stage never reads
//!   inside them;
//! - a REPL or shell line (`>>> get_weather(…)`, `$ get_weather(…)`), a
//!   list item or a quote: something stands before the name on its line;
//! - a line of an indented code block: indented four columns or more;
//! - a positional call (`get_weather("Paris")`) or one that passes a
//!   variable (`get_weather(city=city)`): that is how code calls a
//!   function, and a model's leaked call names its arguments with literals;
//! - a call inside a sentence, or followed by a comment or more code on its
//!   line: the line is not the call alone.

use super::arguments::python_keywords;
use super::reader::Reader;
use super::text::{ascii, Reading};
use crate::filter::strip::ParsedCall;

impl Reader<'_> {
    /// `NAME(k=v, …)` alone on its line, the name at `at` (an offered
    /// tool's, `tool`) and its `(` at `paren`: the call and where its `)`
    /// ends.
    pub(super) fn python_line(&self, tool: usize, paren: usize) -> Reading<Option<(ParsedCall, usize)>> {
        if !self.blank || self.indented {
            return Ok(None);
        }
        let Some(end) = self.closed_on_its_line(paren)? else { return Ok(None) };
        let after = self.skip_blank(end)?;
        let alone = match self.peek(after)? {
            None => true,
            Some(unit) => unit == u16::from(b'\n') || unit == u16::from(b'\r'),
        };
        if !alone {
            return Ok(None);
        }
        Ok(python_keywords(&self.text[paren + 1..end - 1])
            .map(|input| (ParsedCall::offered(tool, Ok(input)), end)))
    }

    /// Where the group opened at `paren` closes, if it does before its line
    /// ends (strings in quotes skipped): so a line that only opens a call
    /// is decided at its end, and never holds the text after it.
    fn closed_on_its_line(&self, paren: usize) -> Reading<Option<usize>> {
        let mut depth = 0usize;
        let mut quote = None;
        let mut i = paren;
        loop {
            let unit = self.unit(i)?;
            if unit == u16::from(b'\n') {
                return Ok(None);
            }
            match (quote, ascii(unit)) {
                (Some(_), Some(b'\\')) => i += 1,
                (Some(q), Some(b)) if b == q => quote = None,
                (Some(_), _) => {}
                (None, Some(q @ (b'"' | b'\''))) => quote = Some(q),
                (None, Some(b'(' | b'[' | b'{')) => depth += 1,
                (None, Some(b')' | b']' | b'}')) => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Ok(Some(i + 1));
                    }
                }
                (None, _) => {}
            }
            i += 1;
        }
    }
}
