//! Narrated calls: a model that imitates a harness's transcript of a call
//! instead of making it. (The openings are leads the skip searches for:
//! [`NARRATION_LEADS`](super::tools::NARRATION_LEADS).)
//!
//! ```text
//! narrated = role? verb " tool " NAME (" (" ID ")")? " with " what ":" JSON   (at a line's start,
//!                                            after a special token, or opened by the role word)
//!          | ":"? NAME " " label ":" JSON                                  (`: NAME Args :{…}`)
//! role     = "Assistant " | "assistant "
//! verb     = "called" | "Called" | "calling" | "Calling"
//! what     = "arguments" | "args" | "input" | "parameters"
//! label    = "Args" | "Arguments"
//! ```
//!
//! Why it cannot fire on prose: the tool must be an offered one, named
//! right after the transcript's words; its arguments must be a JSON object
//! that parses; and the narration must end its line there (or the text, or
//! meet a special token). A sentence that mentions a call ("I called
//! get_weather and it said…", "called tool get_weather with arguments:
//! {…} and got 20°C") has no JSON object, or goes on after it. The verb form
//! must also begin its line, follow a special token, or open with the role
//! word the transcript writes (`Assistant called tool …`): a first-person
//! sentence mid-line (`I called tool …`) is prose.

use serde_json::Value;

use super::reader::{Level, Reader};
use super::text::Reading;
use crate::filter::strip::ParsedCall;

const ROLES: [&str; 2] = ["Assistant ", "assistant "];
const VERBS: [&str; 4] = ["called tool ", "Called tool ", "calling tool ", "Calling tool "];
const WHATS: [&str; 4] = [" with arguments:", " with args:", " with input:", " with parameters:"];
const LABELS: [&str; 2] = ["Args", "Arguments"];
/// The longest call id a narration carries: `(call_resync_1)`.
const MAX_ID: usize = 64;

impl Reader<'_> {
    /// A narrated call at `at`: the call and where its JSON ends.
    pub(super) fn narrated_head(&self, at: usize, level: Level) -> Reading<Option<(ParsedCall, usize)>> {
        if self.is(at, b':')? {
            let name = self.skip_blank(at + 1)?;
            return self.labelled(name);
        }
        let placed = self.blank || level == Level::Strong;
        let mut i = at;
        let mut role = false;
        for word in ROLES {
            if self.literal(i, word)? {
                i += word.len();
                role = true;
                break;
            }
        }
        let Some(verb) = first_literal(self, i, &VERBS)? else {
            return if placed && !role { self.labelled(at) } else { Ok(None) };
        };
        if !(placed || role) {
            return Ok(None);
        }
        let Some((tool, mut i)) = self.name_at(i + verb.len())? else { return Ok(None) };
        if self.literal(i, " (")? {
            let id = i + 2;
            let mut j = id;
            while self
                .byte(j)?
                .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
            {
                j += 1;
                if j - id > MAX_ID {
                    return Ok(None);
                }
            }
            if j == id || !self.is(j, b')')? {
                return Ok(None);
            }
            i = j + 1;
        }
        let Some(what) = first_literal(self, i, &WHATS)? else { return Ok(None) };
        self.json_to_line_end(tool, i + what.len())
    }

    /// `NAME Args :{…}` at `at`.
    fn labelled(&self, at: usize) -> Reading<Option<(ParsedCall, usize)>> {
        let Some((tool, name_end)) = self.name_at(at)? else { return Ok(None) };
        let label = self.skip_blank(name_end)?;
        if label == name_end {
            return Ok(None);
        }
        let Some(word) = first_literal(self, label, &LABELS)? else { return Ok(None) };
        let colon = self.skip_blank(label + word.len())?;
        if !self.is(colon, b':')? {
            return Ok(None);
        }
        self.json_to_line_end(tool, colon + 1)
    }

    /// A JSON object from `at` (blanks first) that ends its line: the call
    /// and where the object ends.
    fn json_to_line_end(&self, tool: usize, at: usize) -> Reading<Option<(ParsedCall, usize)>> {
        let open = self.skip_blank(at)?;
        if !self.is(open, b'{')? {
            return Ok(None);
        }
        let (input, end) = self.json_arguments(open)?;
        let Ok(input @ Value::Object(_)) = input else { return Ok(None) };
        let after = self.skip_blank(end)?;
        let ends_line = match self.peek(after)? {
            None => true,
            Some(unit) if unit == u16::from(b'\n') || unit == u16::from(b'\r') => true,
            Some(unit) if unit == u16::from(b'<') => self.special_token(after)?.is_some(),
            Some(_) => false,
        };
        if !ends_line {
            return Ok(None);
        }
        self.named.set(true);
        Ok(Some((ParsedCall::offered(tool, Ok(input)), end)))
    }
}

/// The first of `literals` at `at`.
fn first_literal(reader: &Reader<'_>, at: usize, literals: &[&'static str]) -> Reading<Option<&'static str>> {
    for &literal in literals {
        if reader.literal(at, literal)? {
            return Ok(Some(literal));
        }
    }
    Ok(None)
}

/// Whether a narration's `: NAME` may begin at the `:` that starts `rest`:
/// blanks, then an offered name (or the text ends before that is decided).
pub(super) fn colon_may_lead(rest: &[u16], name_may_begin: impl Fn(&[u16]) -> bool) -> bool {
    let blanks =
        rest[1..].iter().take_while(|&&unit| unit == u16::from(b' ') || unit == u16::from(b'\t')).count();
    let name = &rest[1 + blanks..];
    name.is_empty() || name_may_begin(name)
}
