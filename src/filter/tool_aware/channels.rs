//! Harmony channel headers (gpt-oss): `<|channel|>analysis<|message|>`,
//! `<|start|>assistant<|channel|>final<|message|>`, left in an answer
//! around its calls.
//!
//! ```text
//! header  = <|end|>? (<|start|> role)? <|channel|> channel (<|constrain|> word)? <|message|>
//! role    = assistant
//! channel = analysis | commentary | final
//! ```
//!
//! A header that a call follows is read with it, as that call's openers
//! (`<|channel|>commentary to=NAME <|constrain|>json<|message|>{…}`); this
//! file reads a header that no call follows, and a header whose special
//! tokens were already removed (`commentary to=NAME json{…}`, see
//! [`is_channel_word`](super::reader::is_channel_word)).
//!
//! Why a header alone cannot be prose or code: it is made only of harmony's
//! own special tokens and a channel name, in harmony's order. A document
//! that explains the format puts it in a code block or inline code, which
//! the stage never reads; and one that writes it bare inside a sentence is
//! left alone too: a header alone goes only where it begins its line (or
//! follows a leak), or where it opens with `<|end|>` or `<|start|>`, the
//! tokens that end one message and begin the next.

use super::reader::Reader;
use super::text::Reading;

const CHANNELS: [&str; 3] = ["analysis", "commentary", "final"];

impl Reader<'_> {
    /// A channel header that stands alone at `at`, where it may (see the
    /// module doc; anywhere right after a leak, `after_leak`): where it ends.
    pub(super) fn lone_channel_header(&self, at: usize, after_leak: bool) -> Reading<Option<usize>> {
        let mut i = at;
        let mut turn = false;
        if self.literal(i, "<|end|>")? {
            i += "<|end|>".len();
            turn = true;
        }
        if self.literal(i, "<|start|>")? {
            i += "<|start|>".len();
            turn = true;
            if self.literal(i, "assistant")? {
                i += "assistant".len();
            }
        }
        if !(turn || self.blank || after_leak) || !self.literal(i, "<|channel|>")? {
            return Ok(None);
        }
        i += "<|channel|>".len();
        let mut channel = false;
        for name in CHANNELS {
            if self.literal(i, name)? {
                i += name.len();
                channel = true;
                break;
            }
        }
        if !channel {
            return Ok(None);
        }
        if self.literal(i, "<|constrain|>")? {
            i += "<|constrain|>".len();
            while self.byte(i)?.is_some_and(|b| b.is_ascii_alphanumeric()) {
                i += 1;
            }
        }
        Ok(self.literal(i, "<|message|>")?.then_some(i + "<|message|>".len()))
    }
}
