//! What every part of the reader shares: why a read stops ([`Stop`]), and
//! the tests on single units (ASCII, space, tag-name and word units).

/// Why a read stopped short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// Not a leak here.
    No,
    /// The text ended before it could be decided.
    More,
}

pub(super) type Reading<T> = Result<T, Stop>;

/// A read that may fail: the end of a complete text, or a shape that is not
/// there, is `None`.
pub(super) fn optional<T>(reading: Reading<Option<T>>) -> Reading<Option<T>> {
    match reading {
        Err(Stop::No) => Ok(None),
        other => other,
    }
}

pub(super) const FULL_BAR: u16 = 0xFF5C;
pub(super) const LEFT_QUOTE: u16 = 0x201C;
pub(super) const RIGHT_QUOTE: u16 = 0x201D;

pub(super) fn ascii(unit: u16) -> Option<u8> {
    u8::try_from(unit).ok().filter(u8::is_ascii)
}

pub(super) fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// What a tag's name is made of: ASCII letters, digits, `_`, `-`, `:`
/// and `.`; and, in an offered tool's name, any unit beyond ASCII.
pub(super) fn is_tag_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b':' | b'.')
}

pub(super) fn is_tag_name_unit(unit: u16) -> bool {
    ascii(unit).is_none_or(is_tag_name_byte)
}

pub(super) fn is_word(unit: u16) -> bool {
    ascii(unit).is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
}

pub(super) fn spells(units: &[u16], text: &str) -> bool {
    text.encode_utf16().eq(units.iter().copied())
}
