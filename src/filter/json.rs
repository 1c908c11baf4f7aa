//! JSON for the patterns that strip a tool call written as JSON: a start
//! literal followed by an object or array (`[TOOL_CALLS][{...}]`,
//! `<|python_tag|>{...}`), and a bare JSON tool call.
//!
//! [`JsonScan`] recognises one such value a code unit at a time, the way the
//! filter steps its threads. Its state is a place in the grammar plus the open
//! containers at one bit each, so threads in the same place compare and hash
//! equal and merge. The grammar is RFC 8259 with one leniency: raw control
//! characters are accepted inside strings, because models write raw newlines
//! there and the leak must still be caught. Outside strings only ASCII belongs
//! to the grammar, so any other unit there, a lone surrogate included, ends
//! the match.
//!
//! [`is_tool_call`] decides whether a closed value is shaped like a tool call
//! rather than an ordinary JSON answer. It reads the code units itself rather
//! than through a decoded `String`, so a lone surrogate (raw or `\uD800`)
//! neither fails the parse nor turns into U+FFFD, and a tool name is compared
//! exactly. Tool-aware detection reads a call with serde_json instead, which
//! takes UTF-8: [`readable`] writes the text so that serde_json reads every
//! lone surrogate too, marked, and [`unmarked`] gives a string's units back.

/// Result of feeding one unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// The value is open: more units may complete it.
    More,
    /// This unit closed the value; the match ends right after it.
    Done,
    /// No continuation makes the units fed so far a JSON object or array.
    Invalid,
}

/// A streaming recognizer of one JSON value that must be an object or an
/// array, optionally preceded by JSON whitespace (space, tab, LF, CR).
///
/// Each step costs O(1) amortized and nothing recurses, so any depth is safe.
/// Once a step has returned [`Step::Done`] or [`Step::Invalid`] the scan is
/// spent: it must not be fed again, and if it is, every unit is `Invalid`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct JsonScan {
    place: Place,
    open: Containers,
}

/// Where a scan stands in the grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Place {
    /// Only whitespace so far; the value must open with `{` or `[`.
    BeforeValue,
    /// Just after `[`: a value or `]`.
    FirstItem,
    /// Just after `{`: a key or `}`.
    FirstKey,
    /// After `,` in an object: a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// After `:`, or after `,` in an array: a value.
    Value,
    /// After a value inside a container: `,` or the closing bracket.
    AfterValue,
    /// Inside a string; `key` says whether it is an object key.
    InString { key: bool },
    /// Just after a backslash in a string.
    InEscape { key: bool },
    /// Inside a `\u` escape, with `left` hex digits still to come.
    InHex { key: bool, left: u8 },
    /// Inside `true`, `false` or `null`: the letters still to come.
    InWord(&'static [u8]),
    /// Inside a number.
    InNumber(NumberPart),
    /// After `Done` or `Invalid`.
    Spent,
}

/// The part of `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?` a number has reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum NumberPart {
    Minus,
    Zero,
    Integer,
    Point,
    Fraction,
    Exponent,
    ExponentSign,
    ExponentDigits,
}

impl NumberPart {
    /// The part after `byte`, or `None` if `byte` cannot continue the number.
    fn next(self, byte: u8) -> Option<NumberPart> {
        use NumberPart::*;
        match (self, byte) {
            (Minus, b'0') => Some(Zero),
            (Minus | Integer, b'0'..=b'9') => Some(Integer),
            (Zero | Integer, b'.') => Some(Point),
            (Point | Fraction, b'0'..=b'9') => Some(Fraction),
            (Zero | Integer | Fraction, b'e' | b'E') => Some(Exponent),
            (Exponent, b'+' | b'-') => Some(ExponentSign),
            (Exponent | ExponentSign | ExponentDigits, b'0'..=b'9') => Some(ExponentDigits),
            _ => None,
        }
    }

    /// Whether the number may end here.
    fn is_complete(self) -> bool {
        matches!(
            self,
            NumberPart::Zero | NumberPart::Integer | NumberPart::Fraction | NumberPart::ExponentDigits
        )
    }
}

/// The open containers, outermost first, one bit per level (set for an
/// object). The first 64 levels live inline, so the usual scan never
/// allocates; deeper levels spill into `deeper`.
///
/// Invariant, for equal stacks to compare equal: bits at levels `>= depth`
/// are clear, and `deeper` holds exactly the words levels `64..depth` need.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Containers {
    depth: usize,
    first: u64,
    deeper: Vec<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Container {
    Object,
    Array,
}

impl Containers {
    fn word(&mut self, level: usize) -> &mut u64 {
        if level < 64 {
            &mut self.first
        } else {
            &mut self.deeper[(level - 64) / 64]
        }
    }

    fn push(&mut self, container: Container) {
        let level = self.depth;
        if level >= 64 && level.is_multiple_of(64) {
            self.deeper.push(0);
        }
        if container == Container::Object {
            *self.word(level) |= 1 << (level % 64);
        }
        self.depth += 1;
    }

    /// The `count` (at most 64) levels from `from` up, level `from` in the
    /// lowest bit.
    fn levels(&self, from: usize, count: usize) -> u64 {
        let word = |index: usize| match index {
            0 => self.first,
            _ => self.deeper.get(index - 1).copied().unwrap_or(0),
        };
        let (index, shift) = (from / 64, from % 64);
        let mut bits = word(index) >> shift;
        if shift > 0 {
            bits |= word(index + 1) << (64 - shift);
        }
        if count < 64 {
            bits &= (1 << count) - 1;
        }
        bits
    }

    fn top(&self) -> Option<Container> {
        let level = self.depth.checked_sub(1)?;
        let word = if level < 64 { self.first } else { self.deeper[(level - 64) / 64] };
        Some(if word >> (level % 64) & 1 == 1 { Container::Object } else { Container::Array })
    }

    fn pop(&mut self) {
        let level = self.depth - 1;
        *self.word(level) &= !(1 << (level % 64));
        if level >= 64 && level.is_multiple_of(64) {
            self.deeper.pop();
        }
        self.depth = level;
    }
}

impl JsonScan {
    pub(crate) fn new() -> Self {
        JsonScan { place: Place::BeforeValue, open: Containers::default() }
    }

    /// How many containers are open.
    pub(crate) fn depth(&self) -> usize {
        self.open.depth
    }

    /// Whether this scan reads every unit from here on as `outer` does
    /// until it closes its own value: the same place in the grammar, and
    /// its open containers the innermost of `outer`'s. Then the two have
    /// one future, this scan's value ending when `outer` closes the
    /// container this one opened first. Only scans at most 64 containers
    /// deep are compared (a deeper one answers no).
    pub(crate) fn nests_in(&self, outer: &JsonScan) -> bool {
        let depth = self.open.depth;
        self.place == outer.place
            && self.place != Place::Spent
            && (1..=64).contains(&depth)
            && depth <= outer.open.depth
            && self.open.levels(0, depth) == outer.open.levels(outer.open.depth - depth, depth)
    }

    /// Feeds the next unit. `Done` means this unit closed the value (the
    /// match ends right after it). `Invalid` means no continuation can make
    /// this a JSON object or array. After either, the scan is spent.
    pub(crate) fn step(&mut self, unit: u16) -> Step {
        let step = self.advance(unit);
        if step != Step::More {
            self.place = Place::Spent;
        }
        step
    }

    fn advance(&mut self, unit: u16) -> Step {
        // Inside a string every unit is content but the quote and the
        // backslash: raw control characters and lone surrogates included.
        match self.place {
            Place::InString { key } => {
                match ascii(unit) {
                    Some(b'"') => self.place = if key { Place::Colon } else { Place::AfterValue },
                    Some(b'\\') => self.place = Place::InEscape { key },
                    _ => {}
                }
                return Step::More;
            }
            Place::InEscape { key } => {
                self.place = match ascii(unit) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Place::InString { key },
                    Some(b'u') => Place::InHex { key, left: 4 },
                    _ => return Step::Invalid,
                };
                return Step::More;
            }
            Place::InHex { key, left } => {
                if !ascii(unit).is_some_and(|byte| byte.is_ascii_hexdigit()) {
                    return Step::Invalid;
                }
                self.place =
                    if left == 1 { Place::InString { key } } else { Place::InHex { key, left: left - 1 } };
                return Step::More;
            }
            Place::Spent => return Step::Invalid,
            _ => {}
        }
        let Some(byte) = ascii(unit) else { return Step::Invalid };
        match self.place {
            Place::InWord(rest) => {
                if rest.first() != Some(&byte) {
                    return Step::Invalid;
                }
                self.place = if rest.len() == 1 { Place::AfterValue } else { Place::InWord(&rest[1..]) };
                Step::More
            }
            Place::InNumber(part) => match part.next(byte) {
                Some(part) => {
                    self.place = Place::InNumber(part);
                    Step::More
                }
                // A number ends at the first unit that cannot extend it, and
                // that unit is read as what follows the value.
                None if part.is_complete() => self.after_value(byte),
                None => Step::Invalid,
            },
            _ if is_whitespace(byte) => Step::More,
            Place::BeforeValue => match byte {
                b'{' => self.open(Container::Object),
                b'[' => self.open(Container::Array),
                _ => Step::Invalid,
            },
            Place::FirstItem if byte == b']' => self.close(Container::Array),
            Place::FirstItem | Place::Value => self.begin_value(byte),
            Place::FirstKey if byte == b'}' => self.close(Container::Object),
            Place::FirstKey | Place::Key if byte == b'"' => {
                self.place = Place::InString { key: true };
                Step::More
            }
            Place::Colon if byte == b':' => {
                self.place = Place::Value;
                Step::More
            }
            Place::AfterValue => self.after_value(byte),
            _ => Step::Invalid,
        }
    }

    /// The first unit of a value inside a container.
    fn begin_value(&mut self, byte: u8) -> Step {
        self.place = match byte {
            b'{' => return self.open(Container::Object),
            b'[' => return self.open(Container::Array),
            b'"' => Place::InString { key: false },
            b't' => Place::InWord(b"rue"),
            b'f' => Place::InWord(b"alse"),
            b'n' => Place::InWord(b"ull"),
            b'-' => Place::InNumber(NumberPart::Minus),
            b'0' => Place::InNumber(NumberPart::Zero),
            b'1'..=b'9' => Place::InNumber(NumberPart::Integer),
            _ => return Step::Invalid,
        };
        Step::More
    }

    fn after_value(&mut self, byte: u8) -> Step {
        match byte {
            _ if is_whitespace(byte) => {
                self.place = Place::AfterValue;
                Step::More
            }
            b',' => {
                self.place =
                    if self.open.top() == Some(Container::Object) { Place::Key } else { Place::Value };
                Step::More
            }
            b'}' => self.close(Container::Object),
            b']' => self.close(Container::Array),
            _ => Step::Invalid,
        }
    }

    fn open(&mut self, container: Container) -> Step {
        self.open.push(container);
        self.place = if container == Container::Object { Place::FirstKey } else { Place::FirstItem };
        Step::More
    }

    fn close(&mut self, container: Container) -> Step {
        if self.open.top() != Some(container) {
            return Step::Invalid;
        }
        self.open.pop();
        if self.open.depth == 0 {
            return Step::Done;
        }
        self.place = Place::AfterValue;
        Step::More
    }
}

/// The unit as an ASCII byte, if it is one.
fn ascii(unit: u16) -> Option<u8> {
    u8::try_from(unit).ok().filter(u8::is_ascii)
}

fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// Whether `text` (exactly one JSON object or array, as [`JsonScan`] accepts
/// it, with optional whitespace around it) is a tool call. `tool_names`:
/// when `Some`, every call must name one of them (exact, case-sensitive).
///
/// A *call object* is an object with a string `name` (or a string
/// `function`) and an object `arguments` or `parameters`, other keys
/// allowed. It is not a call if it has a `description` key, or if its
/// `parameters` is an object with both `type` and `properties`: that is a
/// tool definition and its JSON Schema. The value is a call if it is
///
/// - a call object;
/// - the OpenAI shape `{"type": "function", "function": {...}}`, other keys
///   allowed, whose `function` is a call object with a string `name`, where
///   `arguments` may also be a string (OpenAI serialises them as one);
/// - an object whose `tool_calls` is a non-empty array of the two above;
/// - a non-empty array whose every element is one of the three above.
///
/// The name checked against `tool_names` is the `name`, else the string
/// `function`, else `function.name`. Text that is not one complete object or
/// array is never a call. A key given twice counts by its last occurrence,
/// as in `JSON.parse`.
pub(crate) fn is_tool_call(text: &[u16], tool_names: Option<&[String]>) -> bool {
    is_one_container(text) && is_scanned_tool_call(text, tool_names, &|_| None)
}

/// [`is_tool_call`] of `text` that a [`JsonScan`] accepted already: one
/// object or array, whitespace before it. `ends(at)` may say where a
/// container that begins at `at` ends (one past its last unit), so that the
/// shape check skips one below [`OUTLINE_DEPTH`] in one step: the filter,
/// which checks every call of a nest, reads each unit a bounded number of
/// times that way, however deep the nest.
pub(crate) fn is_scanned_tool_call(
    text: &[u16],
    tool_names: Option<&[String]>,
    ends: &dyn Fn(usize) -> Option<usize>,
) -> bool {
    let Some(value) = (Reader { text, at: 0, ends }).value(0) else { return false };
    match &value {
        Outline::Array(items) => !items.is_empty() && items.iter().all(|item| is_call(item, tool_names)),
        _ => is_call(&value, tool_names),
    }
}

/// Whether `prefix`, the start of a JSON value that the answer ended inside,
/// already shows a tool call: some object that closed within it, as the
/// value itself (`[call, …`), one of its members (`{"tool_calls": [call, …`
/// counts at the next level) or a member of a member, is a call by
/// [`is_tool_call`]. An answer cut off inside an ordinary JSON document
/// (a `package.json`, an API response) shows none, and is the answer's own
/// text; one cut off after a whole call object (a brace missing at the end)
/// is a call.
///
/// One pass over `prefix`, and each closed object at those three levels is
/// checked once, so the work is linear in the prefix for any nesting.
pub(crate) fn shows_tool_call(prefix: &[u16], tool_names: Option<&[String]>) -> bool {
    // The start of every container still open, outermost first.
    let mut open: Vec<usize> = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for (at, &unit) in prefix.iter().enumerate() {
        let Some(byte) = ascii(unit) else { continue };
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => open.push(at),
            b'}' | b']' => {
                let Some(start) = open.pop() else { return false };
                // The value itself is level 0; its members 1, theirs 2.
                if byte == b'}' && open.len() <= 2 && is_tool_call(&prefix[start..=at], tool_names) {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// Whether `text` is whitespace, one object or array, whitespace.
fn is_one_container(text: &[u16]) -> bool {
    let mut scan = JsonScan::new();
    for (at, &unit) in text.iter().enumerate() {
        match scan.step(unit) {
            Step::More => {}
            Step::Done => return text[at + 1..].iter().all(|&unit| ascii(unit).is_some_and(is_whitespace)),
            Step::Invalid => return false,
        }
    }
    false
}

/// A call in any form but the array form.
fn is_call(value: &Outline, tool_names: Option<&[String]>) -> bool {
    if is_single_call(value, tool_names) {
        return true;
    }
    let Outline::Object(fields) = value else { return false };
    matches!(
        field(fields, "tool_calls"),
        Some(Outline::Array(calls))
            if !calls.is_empty() && calls.iter().all(|call| is_single_call(call, tool_names))
    )
}

/// A call object or the OpenAI shape.
fn is_single_call(value: &Outline, tool_names: Option<&[String]>) -> bool {
    let Outline::Object(fields) = value else { return false };
    let name = call_name(fields, &["name", "function"], false).or_else(|| {
        match (field(fields, "type"), field(fields, "function")) {
            (Some(Outline::String(kind)), Some(Outline::Object(function))) if spells(kind, "function") => {
                call_name(function, &["name"], true)
            }
            _ => None,
        }
    });
    name.is_some_and(|name| tool_names.is_none_or(|names| names.iter().any(|offered| spells(name, offered))))
}

/// The name of the call `fields` make, if they make one: the first string
/// among `name_keys`, given object `arguments` or `parameters` (or string
/// `arguments`, with `string_arguments`) and neither definition mark.
fn call_name<'a>(fields: &'a Fields, name_keys: &[&str], string_arguments: bool) -> Option<&'a [u16]> {
    if field(fields, "description").is_some() {
        return None;
    }
    let parameters = field(fields, "parameters");
    if let Some(Outline::Object(schema)) = parameters {
        if field(schema, "type").is_some() && field(schema, "properties").is_some() {
            return None;
        }
    }
    let has_arguments = match (field(fields, "arguments"), parameters) {
        (Some(Outline::Object(_)), _) | (_, Some(Outline::Object(_))) => true,
        (Some(Outline::String(_)), _) => string_arguments,
        _ => false,
    };
    if !has_arguments {
        return None;
    }
    name_keys.iter().find_map(|key| match field(fields, key) {
        Some(Outline::String(name)) => Some(name.as_slice()),
        _ => None,
    })
}

/// An object's entries, in text order.
type Fields = [(Vec<u16>, Outline)];

/// The value of `key`'s last occurrence.
fn field<'a>(fields: &'a Fields, key: &str) -> Option<&'a Outline> {
    fields.iter().rev().find(|(name, _)| spells(name, key)).map(|(_, value)| value)
}

/// Whether `units` spell exactly `text`.
fn spells(units: &[u16], text: &str) -> bool {
    text.encode_utf16().eq(units.iter().copied())
}

/// The deepest level whose containers the shape check reads (the top value
/// is level 0). The deepest path it follows is array, message object,
/// `tool_calls`, OpenAI object, `function`, then the keys of `parameters`
/// at level 5; anything deeper is skipped without being kept.
pub(crate) const OUTLINE_DEPTH: usize = 5;

/// A JSON value as far as the shape check looks: containers down to
/// [`OUTLINE_DEPTH`] with their entries, strings with their decoded units,
/// and everything else as `Other`.
#[derive(Debug)]
enum Outline {
    Object(Vec<(Vec<u16>, Outline)>),
    Array(Vec<Outline>),
    String(Vec<u16>),
    Other,
}

/// Reads an outline from text that [`JsonScan`] has accepted. Recursion
/// stops at [`OUTLINE_DEPTH`]; below it, values are skipped by a loop. On
/// anything unexpected it answers `None`, never panics.
struct Reader<'a> {
    text: &'a [u16],
    at: usize,
    /// Where a container that begins at a position ends, when known.
    ends: &'a dyn Fn(usize) -> Option<usize>,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u16> {
        self.text.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u16> {
        let unit = self.peek()?;
        self.at += 1;
        Some(unit)
    }

    fn skip_whitespace(&mut self) {
        while self.peek().and_then(ascii).is_some_and(is_whitespace) {
            self.at += 1;
        }
    }

    /// Expects `byte` after optional whitespace.
    fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_whitespace();
        (self.next().and_then(ascii) == Some(byte)).then_some(())
    }

    fn value(&mut self, level: usize) -> Option<Outline> {
        self.skip_whitespace();
        if level > OUTLINE_DEPTH {
            self.skip_value()?;
            return Some(Outline::Other);
        }
        match self.peek().and_then(ascii)? {
            b'{' => self.object(level),
            b'[' => self.array(level),
            b'"' => self.string().map(Outline::String),
            _ => {
                self.skip_value()?;
                Some(Outline::Other)
            }
        }
    }

    fn object(&mut self, level: usize) -> Option<Outline> {
        self.expect(b'{')?;
        let mut fields = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(u16::from(b'}')) {
            self.at += 1;
            return Some(Outline::Object(fields));
        }
        loop {
            self.skip_whitespace();
            let key = self.string()?;
            self.expect(b':')?;
            fields.push((key, self.value(level + 1)?));
            self.skip_whitespace();
            match self.next().and_then(ascii)? {
                b',' => {}
                b'}' => return Some(Outline::Object(fields)),
                _ => return None,
            }
        }
    }

    fn array(&mut self, level: usize) -> Option<Outline> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(u16::from(b']')) {
            self.at += 1;
            return Some(Outline::Array(items));
        }
        loop {
            items.push(self.value(level + 1)?);
            self.skip_whitespace();
            match self.next().and_then(ascii)? {
                b',' => {}
                b']' => return Some(Outline::Array(items)),
                _ => return None,
            }
        }
    }

    /// A string's decoded units. `\uXXXX` yields its unit as is, so an
    /// escaped surrogate pair yields the pair and a lone one stays lone.
    fn string(&mut self) -> Option<Vec<u16>> {
        self.expect(b'"')?;
        let mut units = Vec::new();
        loop {
            let unit = self.next()?;
            match ascii(unit) {
                Some(b'"') => return Some(units),
                Some(b'\\') => units.push(self.escape()?),
                _ => units.push(unit),
            }
        }
    }

    /// The unit an escape stands for, read after its backslash.
    fn escape(&mut self) -> Option<u16> {
        let unit = match self.next().and_then(ascii)? {
            b'b' => 0x08,
            b'f' => 0x0C,
            b'n' => 0x0A,
            b'r' => 0x0D,
            b't' => 0x09,
            b'u' => {
                let mut code = 0;
                for _ in 0..4 {
                    let digit = char::from(self.next().and_then(ascii)?).to_digit(16)?;
                    code = code << 4 | digit as u16;
                }
                code
            }
            byte => u16::from(byte),
        };
        Some(unit)
    }

    fn skip_string(&mut self) -> Option<()> {
        self.expect(b'"')?;
        loop {
            match ascii(self.next()?) {
                Some(b'"') => return Some(()),
                Some(b'\\') => {
                    self.next()?;
                }
                _ => {}
            }
        }
    }

    /// Moves past one value of any depth without keeping it.
    fn skip_value(&mut self) -> Option<()> {
        if let (Some(b'{' | b'['), Some(end)) = (self.peek().and_then(ascii), (self.ends)(self.at)) {
            if end > self.at && end <= self.text.len() {
                self.at = end;
                return Some(());
            }
        }
        let mut open = 0usize;
        loop {
            match self.peek().and_then(ascii) {
                Some(b'"') => self.skip_string()?,
                Some(b'{' | b'[') => {
                    open += 1;
                    self.at += 1;
                    continue;
                }
                Some(b'}' | b']') if open > 0 => {
                    open -= 1;
                    self.at += 1;
                }
                // A scalar ends at the first unit that follows it.
                Some(b'}' | b']' | b',') if open == 0 => return Some(()),
                Some(byte) if open == 0 && is_whitespace(byte) => return Some(()),
                _ => {
                    self.next()?;
                    continue;
                }
            }
            if open == 0 {
                return Some(());
            }
        }
    }
}

/// The units of `quoted`, one JSON string literal with its quotes, its
/// escapes decoded as [`is_tool_call`] reads them (a lone surrogate stays
/// lone); `None` if `quoted` is not exactly one string literal.
pub(crate) fn string_units(quoted: &[u16]) -> Option<Vec<u16>> {
    let mut reader = Reader { text: quoted, at: 0, ends: &|_| None };
    let units = reader.string()?;
    (reader.at == quoted.len()).then_some(units)
}

/// Stands before a lone surrogate's stand-in in [`readable`] text, and
/// before itself: a private-use code point, so text seldom holds it.
const MARK: char = '\u{10FFFD}';
/// Where the stand-ins of the 2048 surrogates begin: the stand-in of unit
/// `u` is `STAND_INS + (u - 0xD800)`, in plane 15's private use area.
const STAND_INS: u32 = 0xF0000;

/// UTF-16 JSON text as a string serde_json can read (it reads UTF-8, where
/// a lone surrogate cannot be), and whether any string in it is marked. A
/// lone surrogate, raw or a `\uXXXX` escape, becomes [`MARK`] and its
/// stand-in, and a [`MARK`] in the text becomes two; a surrogate pair,
/// raw, escaped or one of each (as `JSON.parse` joins them), becomes its
/// character; every other escape is left for serde_json. A string read
/// from the result gives back its exact units through [`unmarked`].
pub(crate) fn readable(text: &[u16]) -> (String, bool) {
    let mut out = String::with_capacity(text.len());
    let mut marked = false;
    let mut at = 0;
    while at < text.len() {
        let Some((unit, next)) = unit_at(text, at) else {
            // Another escape, whole (so `\\u0041` stays a backslash and a `u`).
            out.push('\\');
            if let Some(&escaped) = text.get(at + 1).filter(|&&unit| unit < 0x80) {
                out.push(char::from(escaped as u8));
                at += 2;
            } else {
                at += 1;
            }
            continue;
        };
        if !(0xD800..0xE000).contains(&unit) {
            if next - at == 6 {
                // An escape other than a surrogate's stays, for serde_json
                // to read (its six units are ASCII).
                out.extend(text[at..next].iter().map(|&u| char::from(u as u8)));
            } else {
                out.push(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
            at = next;
            continue;
        }
        if unit < 0xDC00 {
            if let Some((low @ 0xDC00..=0xDFFF, after)) = unit_at(text, next) {
                let code = 0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                let c = char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER);
                if c == MARK {
                    out.push(MARK);
                    marked = true;
                }
                out.push(c);
                at = after;
                continue;
            }
        }
        out.push(MARK);
        out.push(char::from_u32(STAND_INS + u32::from(unit - 0xD800)).unwrap_or(char::REPLACEMENT_CHARACTER));
        marked = true;
        at = next;
    }
    (out, marked)
}

/// The unit at `at`, raw or as a `\uXXXX` escape, and where it ends;
/// `None` at any other escape.
fn unit_at(text: &[u16], at: usize) -> Option<(u16, usize)> {
    let &unit = text.get(at)?;
    if unit != u16::from(b'\\') {
        return Some((unit, at + 1));
    }
    if text.get(at + 1) != Some(&u16::from(b'u')) {
        return None;
    }
    let digits = text.get(at + 2..at + 6)?;
    let mut code = 0u16;
    for &digit in digits {
        code = code << 4 | char::from_u32(u32::from(digit))?.to_digit(16)? as u16;
    }
    Some((code, at + 6))
}

/// The units a string read from [`readable`] text stands for.
pub(crate) fn unmarked(text: &str) -> Vec<u16> {
    let mut units = Vec::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != MARK {
            units.extend(c.encode_utf16(&mut [0; 2]).iter());
            continue;
        }
        match chars.next() {
            Some(MARK) => units.extend(MARK.encode_utf16(&mut [0; 2]).iter()),
            Some(stand_in) => match (u32::from(stand_in)).checked_sub(STAND_INS) {
                Some(offset @ 0..0x800) => units.push(0xD800 + offset as u16),
                // Never made by `readable`: kept as it is.
                _ => {
                    units.extend(MARK.encode_utf16(&mut [0; 2]).iter());
                    units.extend(stand_in.encode_utf16(&mut [0; 2]).iter());
                }
            },
            None => units.extend(MARK.encode_utf16(&mut [0; 2]).iter()),
        }
    }
    units
}

#[cfg(test)]
mod tests {
    use std::collections::hash_map::DefaultHasher;
    use std::hash::{Hash, Hasher};

    use super::{
        is_one_container, is_scanned_tool_call, is_tool_call, readable, string_units, unmarked, JsonScan,
        Step, MARK,
    };

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    /// Feeds `units` one by one and returns the step of the last unit,
    /// checking that every earlier unit was `More`.
    fn last_step(name: &str, units: &[u16]) -> Step {
        let mut scan = JsonScan::new();
        let mut last = Step::More;
        for (at, &unit) in units.iter().enumerate() {
            assert_eq!(last, Step::More, "{name}: the scan ended before unit {at}");
            last = scan.step(unit);
        }
        last
    }

    /// One scan row: the text, and the step of its last unit. Every earlier
    /// unit must be `More`, so an `Invalid` row ends at the offending unit
    /// and a `More` row is an open prefix.
    const SCANS: &[(&str, &str, Step)] = &[
        ("empty object", "{}", Step::Done),
        ("empty array", "[]", Step::Done),
        ("leading whitespace", " \t\n\r{}", Step::Done),
        ("whitespace between every token", "{ \"a\" :\t[ 1 ,\n2 ]\r}", Step::Done),
        (
            "object of every value",
            r#"{"s":"x","n":-1,"t":true,"f":false,"z":null,"o":{},"a":[]}"#,
            Step::Done,
        ),
        ("literals", "[true,false,null]", Step::Done),
        ("every escape", r#"["\" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00 \uABCDef"]"#, Step::Done),
        ("escaped lone surrogate", r#"["\ud800"]"#, Step::Done),
        ("escapes in a key", r#"{"\n\u0041":1}"#, Step::Done),
        ("numbers", "[0,-0,-0.5e+3,1E5,2e-7,10.25,123,0.0,1e05,-9E+0]", Step::Done),
        ("number before whitespace", "[1 ]", Step::Done),
        ("number before a newline", "[-0.5e+3\n]", Step::Done),
        ("number before a closing brace", r#"{"a":0}"#, Step::Done),
        ("number before a comma", "[1,2]", Step::Done),
        ("raw control characters in strings", "[\"a\nb\tc\u{0}\u{1f}\r\"]", Step::Done),
        ("raw newline in a key", "{\"a\nb\":1}", Step::Done),
        ("non-ASCII in strings", r#"["é ✓ 😀 ﻿"]"#, Step::Done),
        ("nested", r#"{"a":{"b":[{"c":[[]]}]}}"#, Step::Done),
        ("brackets inside strings", r#"["]}[{", {"}":"]"}]"#, Step::Done),
        ("string top level", "\"", Step::Invalid),
        ("number top level", "1", Step::Invalid),
        ("negative number top level", "-", Step::Invalid),
        ("true top level", "t", Step::Invalid),
        ("null top level", " n", Step::Invalid),
        ("stray letter", "x", Step::Invalid),
        ("closing bracket first", "]", Step::Invalid),
        ("no-break space is not JSON whitespace", "\u{a0}", Step::Invalid),
        ("vertical tab is not JSON whitespace", "\u{b}", Step::Invalid),
        ("form feed is not JSON whitespace", "\u{c}", Step::Invalid),
        ("non-ASCII outside a string", "[é", Step::Invalid),
        ("leading zero", "[01", Step::Invalid),
        ("double zero", "[00", Step::Invalid),
        ("hex number", "[0x", Step::Invalid),
        ("point without fraction", "[1.]", Step::Invalid),
        ("point then exponent", "[1.e", Step::Invalid),
        ("leading point", "[.", Step::Invalid),
        ("leading plus", "[+", Step::Invalid),
        ("minus alone", "[-]", Step::Invalid),
        ("minus then letter", "[-a", Step::Invalid),
        ("exponent without digits", "[1e]", Step::Invalid),
        ("exponent sign without digits", "[1e+]", Step::Invalid),
        ("second point", "[1.5.", Step::Invalid),
        ("trailing comma in an array", "[1,]", Step::Invalid),
        ("trailing comma in an object", r#"{"a":1,}"#, Step::Invalid),
        ("leading comma", "{,", Step::Invalid),
        ("key without a value", r#"{"a"}"#, Step::Invalid),
        ("colon without a value", r#"{"a":}"#, Step::Invalid),
        ("number key", "{1", Step::Invalid),
        ("single-quoted key", "{'", Step::Invalid),
        ("array closed by a brace", "[}", Step::Invalid),
        ("object closed by a bracket", "{]", Step::Invalid),
        ("array value closed by a brace", "[1}", Step::Invalid),
        ("object value closed by a bracket", r#"{"a":1]"#, Step::Invalid),
        ("missing comma between numbers", "[1 2", Step::Invalid),
        ("missing comma between strings", r#"["a" ""#, Step::Invalid),
        ("missing comma between arrays", "[[] [", Step::Invalid),
        ("colon in an array", "[1:", Step::Invalid),
        ("comma instead of a colon", r#"{"a","#, Step::Invalid),
        ("short literal", "[tru]", Step::Invalid),
        ("capitalised literal", "[T", Step::Invalid),
        ("wrong literal letter", "[falsy", Step::Invalid),
        ("unknown escape", r#"["\x"#, Step::Invalid),
        ("capital U escape", r#"["\U"#, Step::Invalid),
        ("non-hex digit in an escape", r#"["\u12G"#, Step::Invalid),
        ("short unicode escape", r#"["\u12""#, Step::Invalid),
        ("non-ASCII escape", r#"["\é"#, Step::Invalid),
        ("nothing yet", " ", Step::More),
        ("open object", "{", Step::More),
        ("open array", "[", Step::More),
        ("open key", r#"{"a"#, Step::More),
        ("after a key", r#"{"a""#, Step::More),
        ("after a colon", r#"{"a":"#, Step::More),
        ("open number", "[1", Step::More),
        ("open zero", "[0", Step::More),
        ("open minus", "[-", Step::More),
        ("open point", "[1.", Step::More),
        ("open exponent", "[1e", Step::More),
        ("open exponent sign", "[-0.5e+", Step::More),
        ("open exponent digits", "[-0.5e+3", Step::More),
        ("open escape", r#"["\"#, Step::More),
        ("open unicode escape", r#"["\u12"#, Step::More),
        ("open literal", "[tr", Step::More),
        ("open after a comma", "[1,", Step::More),
        ("open inner container", r#"{"a":[{"b":"#, Step::More),
        ("inner container closed, outer open", "[[]", Step::More),
    ];

    #[test]
    fn scan_table() {
        for &(name, text, expected) in SCANS {
            assert_eq!(last_step(name, &units(text)), expected, "{name}: {text:?}");
        }
    }

    #[test]
    fn every_escape_and_control_character_alone() {
        for escape in ["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0000", "\\uFFFF"] {
            let text = format!("[\"{escape}\"]");
            assert_eq!(last_step(&text, &units(&text)), Step::Done, "{text}");
        }
        for control in 0..0x20u16 {
            let mut text = units("{\"k\":\"");
            text.extend([control, u16::from(b'"'), u16::from(b'}')]);
            assert_eq!(last_step("raw control", &text), Step::Done, "U+{control:04X}");
        }
    }

    #[test]
    fn lone_surrogates_are_content_in_strings_and_invalid_outside() {
        let mut in_value = units("[\"");
        in_value.extend([0xD800, 0xDC00, 0xDFFF, 0xD83D]);
        in_value.extend(units("\"]"));
        assert_eq!(last_step("value", &in_value), Step::Done);

        let mut in_key = units("{\"");
        in_key.push(0xDBFF);
        in_key.extend(units("\":1}"));
        assert_eq!(last_step("key", &in_key), Step::Done);

        for surrogate in [0xD800, 0xDC00] {
            let mut outside = units("[");
            outside.push(surrogate);
            assert_eq!(last_step("outside", &outside), Step::Invalid);
            assert_eq!(last_step("before the value", &[surrogate]), Step::Invalid);
            let mut in_escape = units("[\"\\");
            in_escape.push(surrogate);
            assert_eq!(last_step("in an escape", &in_escape), Step::Invalid);
        }
    }

    #[test]
    fn done_comes_exactly_at_the_closing_unit() {
        let text = units(r#"  {"a":[1,{"b":"}"}],"c":2}"#);
        let mut scan = JsonScan::new();
        let steps: Vec<Step> = text.iter().map(|&unit| scan.step(unit)).collect();
        let done: Vec<usize> = (0..steps.len()).filter(|&at| steps[at] == Step::Done).collect();
        assert_eq!(done, [text.len() - 1]);
        assert!(steps[..text.len() - 1].iter().all(|&step| step == Step::More));
    }

    #[test]
    fn a_spent_scan_answers_invalid() {
        let mut done = JsonScan::new();
        assert_eq!(done.step(u16::from(b'[')), Step::More);
        assert_eq!(done.step(u16::from(b']')), Step::Done);
        for unit in units(" ]}[{\"1") {
            assert_eq!(done.step(unit), Step::Invalid);
        }
        let mut invalid = JsonScan::new();
        assert_eq!(invalid.step(u16::from(b'x')), Step::Invalid);
        assert_eq!(invalid.step(u16::from(b'{')), Step::Invalid);
    }

    #[test]
    fn ten_thousand_nested_arrays() {
        let depth = 10_000;
        let text = units(&("[".repeat(depth) + &"]".repeat(depth)));
        assert_eq!(last_step("deep", &text), Step::Done);
        let unclosed = units(&"[".repeat(depth));
        assert_eq!(last_step("deep prefix", &unclosed), Step::More);
        let mismatched = units(&("[".repeat(depth) + "]}"));
        assert_eq!(last_step("deep mismatch", &mismatched), Step::Invalid);
    }

    #[test]
    fn hundred_thousand_nested_mixed_containers() {
        let depth = 100_000;
        let text = units(&(r#"{"a":["#.repeat(depth) + "0" + &"]}".repeat(depth)));
        assert_eq!(last_step("deep", &text), Step::Done);
        // The deepest scan is cloned, compared and dropped without recursion.
        let mut scan = JsonScan::new();
        for &unit in &text[..text.len() / 2] {
            scan.step(unit);
        }
        assert_eq!(scan.clone(), scan);
    }

    fn scanned(text: &str) -> JsonScan {
        let mut scan = JsonScan::new();
        for unit in units(text) {
            assert_eq!(scan.step(unit), Step::More, "{text}");
        }
        scan
    }

    fn hash(scan: &JsonScan) -> u64 {
        let mut hasher = DefaultHasher::new();
        scan.hash(&mut hasher);
        hasher.finish()
    }

    #[test]
    fn scans_in_the_same_state_are_equal() {
        let same = [
            (r#"{"a":[1"#, r#"{"bb":[7"#),
            (r#"{"a":"x"#, r#"{"long key":"yz"#),
            ("[[1,2],", r#"[{"k":[]},"#),
            ("[tr", "[{},tr"),
            ("  {", "{"),
            // Deep excursions leave no trace once closed, spilled levels included.
            (&format!("[[[{}0{}", r#"{"k":"#.repeat(100), "}".repeat(100)), "[[[[]"),
            (&format!("[{}", "[".repeat(200) + &"]".repeat(200)), "[[]"),
        ];
        for (left, right) in same {
            let (left_scan, right_scan) = (scanned(left), scanned(right));
            assert_eq!(left_scan, right_scan, "{left} / {right}");
            assert_eq!(hash(&left_scan), hash(&right_scan), "{left} / {right}");
        }
        let different = [
            (r#"{"a":["#, "[["),
            ("[[", "[{"),
            ("[1", "[1."),
            ("[0", "[1"),
            (r#"{"a""#, r#"{"a":"b""#),
            (r#"["a"#, r#"{"a"#),
            (&"[".repeat(65), &"[".repeat(66)),
            (&format!("{}{{", "[".repeat(70)), &"[".repeat(71)),
        ];
        for (left, right) in different {
            assert_ne!(scanned(left), scanned(right), "{left} / {right}");
        }
    }

    /// A scan nests in another when it stands at the same place and its
    /// containers are the innermost of the other's, however deep: then the
    /// two read every unit alike until the inner value closes.
    #[test]
    fn scans_nest_in_the_scans_they_read_on_as() {
        let deep = format!("{}[", r#"{"k":"#.repeat(100));
        let nests = [
            ("[", r#"{"a":["#),
            ("[", "[["),
            (r#"{"b":["#, r#"[{"a":["#),
            ("[", deep.as_str()),
            (r#"{"a":[1"#, r#"[{"b":[7"#),
            (&"[".repeat(64), &format!("{{\"k\":{}", "[".repeat(64))),
        ];
        for (inner, outer) in nests {
            assert!(scanned(inner).nests_in(&scanned(outer)), "{inner} in {outer}");
        }
        let apart = [
            ("[", r#"{"a":{"#),
            ("[1", r#"[["#),
            ("[[", "["),
            (r#"["a"#, r#"[["#),
            // Deeper than 64: not compared.
            (&"[".repeat(65), &"[".repeat(66)),
        ];
        for (inner, outer) in apart {
            assert!(!scanned(inner).nests_in(&scanned(outer)), "{inner} apart from {outer}");
        }
    }

    /// Random texts built from JSON fragments, each checked against
    /// serde_json at the point where the scan ends: a `Done` prefix parses,
    /// an `Invalid` prefix fails before its end, and an open text fails at
    /// its end. serde_json differs from the scan only where the scan is
    /// lenient (raw control characters in strings) or serde_json computes
    /// more (numbers past `f64`), and those texts are skipped.
    #[test]
    fn scan_agrees_with_serde_json() {
        const FRAGMENTS: &[&str] = &[
            "[", "]", "{", "}", "\"", "\"a\"", "\"k\":", ",", ":", " ", "\n", "\t", "0", "1", "9", "-", ".",
            "e", "E", "+", "\\", "u", "00e9", "n", "t", "true", "false", "null", "x", "é", "\u{1}",
        ];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut random = move |bound: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % bound as u64) as usize
        };
        let (mut done, mut invalid, mut open) = (0, 0, 0);
        for _ in 0..200_000 {
            let mut text = String::from([" ", "", ""][random(3)]);
            text.push_str(["[", "{"][random(2)]);
            for _ in 0..random(14) {
                text.push_str(FRAGMENTS[random(FRAGMENTS.len())]);
            }
            let text = units(&text);
            let mut scan = JsonScan::new();
            let ended = text.iter().enumerate().find_map(|(at, &unit)| match scan.step(unit) {
                Step::More => None,
                step => Some((at, step)),
            });
            let read = ended.map_or(text.len(), |(at, _)| at + 1);
            let prefix = String::from_utf16(&text[..read]).unwrap();
            let verdict = serde_json::from_str::<serde_json::Value>(&prefix);
            if let Err(error) = &verdict {
                let message = error.to_string();
                if message.contains("control character") || message.contains("number out of range") {
                    continue;
                }
            }
            match ended {
                Some((_, Step::Done)) => {
                    done += 1;
                    assert!(verdict.is_ok(), "{prefix:?}: {verdict:?}");
                }
                Some(_) => {
                    invalid += 1;
                    // serde_json reads a `\u` escape's four units before it
                    // checks them, so it may hit the end first.
                    let error = verdict.expect_err(&prefix);
                    let padded = serde_json::from_str::<serde_json::Value>(&(prefix.clone() + "0000"));
                    assert!(
                        !error.is_eof() || padded.is_err_and(|error| !error.is_eof()),
                        "{prefix:?}: {error}"
                    );
                }
                None => {
                    open += 1;
                    let error = verdict.expect_err(&prefix);
                    assert!(error.is_eof(), "{prefix:?}: {error}");
                }
            }
        }
        assert!(done > 1_000 && invalid > 1_000 && open > 1_000, "{done} {invalid} {open}");
    }

    /// One shape row: the text, the offered tool names, and whether it is a
    /// tool call.
    const CALLS: &[(&str, &str, Option<&[&str]>, bool)] = &[
        ("call object", r#"{"name":"get_weather","arguments":{"city":"Paris"}}"#, None, true),
        ("Llama parameters", r#"{"name": "get_weather", "parameters": {"city": "Paris"}}"#, None, true),
        ("function names the call", r#"{"function":"f","arguments":{}}"#, None, true),
        ("keys in any order", r#"{"arguments":{},"id":7,"name":"f"}"#, None, true),
        ("surrounding whitespace", " \n{\"name\":\"f\",\"arguments\":{}}\r\n\t", None, true),
        ("raw newline in an argument", "{\"name\":\"f\",\"arguments\":{\"text\":\"a\nb\"}}", None, true),
        ("parameters with a type only", r#"{"name":"f","parameters":{"type":"car"}}"#, None, true),
        ("parameters with properties only", r#"{"name":"f","parameters":{"properties":1}}"#, None, true),
        ("arguments beside scalar parameters", r#"{"name":"f","arguments":{},"parameters":1}"#, None, true),
        ("huge number in the arguments", r#"{"name":"f","arguments":{"n":1e400}}"#, None, true),
        ("escaped lone surrogate in the arguments", r#"{"name":"f","arguments":{"s":"\ud800"}}"#, None, true),
        ("Mistral list", r#"[{"name":"f","arguments":{}}]"#, None, true),
        ("list of two forms", r#"[{"name":"a","arguments":{}}, {"name":"b","parameters":{}}]"#, None, true),
        (
            "OpenAI string arguments",
            r#"{"type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}"#,
            None,
            true,
        ),
        (
            "OpenAI object arguments",
            r#"{"id":"call_1","type":"function","function":{"name":"f","arguments":{}}}"#,
            None,
            true,
        ),
        (
            "OpenAI parameters",
            r#"{"type":"function","function":{"name":"f","parameters":{"x":1}}}"#,
            None,
            true,
        ),
        (
            "assistant message",
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}"#,
            None,
            true,
        ),
        (
            "tool_calls of call objects",
            r#"{"tool_calls":[{"name":"f","arguments":{}},{"name":"g","parameters":{}}]}"#,
            None,
            true,
        ),
        (
            "list of messages",
            r#"[{"tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]},{"name":"g","arguments":{}}]"#,
            None,
            true,
        ),
        ("later duplicate key counts", r#"{"name":1,"name":"f","arguments":{}}"#, None, true),
        ("ordinary answer", r#"{"name": "Alice", "age": 30}"#, None, false),
        ("earlier duplicate key does not count", r#"{"name":"f","name":1,"arguments":{}}"#, None, false),
        ("string arguments outside the OpenAI shape", r#"{"name":"f","arguments":"{}"}"#, None, false),
        ("array arguments", r#"{"name":"f","arguments":[]}"#, None, false),
        ("string parameters", r#"{"name":"f","parameters":"x"}"#, None, false),
        ("number name", r#"{"name":1,"arguments":{}}"#, None, false),
        (
            "object function outside the OpenAI shape",
            r#"{"function":{"name":"f","arguments":{}},"arguments":{}}"#,
            None,
            false,
        ),
        ("no name", r#"{"arguments":{}}"#, None, false),
        ("no arguments", r#"{"name":"f"}"#, None, false),
        (
            "tool definition",
            r#"{"name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}"#,
            None,
            false,
        ),
        ("description beside arguments", r#"{"name":"f","description":"d","arguments":{}}"#, None, false),
        ("schema parameters", r#"{"name":"f","parameters":{"type":"object","properties":{}}}"#, None, false),
        (
            "schema parameters beside arguments",
            r#"{"name":"f","arguments":{},"parameters":{"properties":{},"type":"object"}}"#,
            None,
            false,
        ),
        (
            "OpenAI tool definition",
            r#"{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object","properties":{}}}}"#,
            None,
            false,
        ),
        (
            "OpenAI schema beside arguments",
            r#"{"type":"function","function":{"name":"f","arguments":"{}","parameters":{"type":"object","properties":{}}}}"#,
            None,
            false,
        ),
        (
            "OpenAI of another type",
            r#"{"type":"tool","function":{"name":"f","arguments":"{}"}}"#,
            None,
            false,
        ),
        ("OpenAI without a type", r#"{"function":{"name":"f","arguments":"{}"}}"#, None, false),
        ("OpenAI without a name", r#"{"type":"function","function":{"arguments":"{}"}}"#, None, false),
        (
            "OpenAI function string is no name",
            r#"{"type":"function","function":{"function":"f","arguments":"{}"}}"#,
            None,
            false,
        ),
        (
            "OpenAI number arguments",
            r#"{"type":"function","function":{"name":"f","arguments":1}}"#,
            None,
            false,
        ),
        (
            "API request with tools",
            r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object","properties":{}}}}]}"#,
            None,
            false,
        ),
        (
            "tools list",
            r#"[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object","properties":{}}}}]"#,
            None,
            false,
        ),
        ("empty array", "[]", None, false),
        ("empty object", "{}", None, false),
        ("array of numbers", "[1,2,3]", None, false),
        ("call and a number", r#"[{"name":"f","arguments":{}},1]"#, None, false),
        ("call and an ordinary object", r#"[{"name":"f","arguments":{}},{"name":"Alice"}]"#, None, false),
        ("nested array form", r#"[[{"name":"f","arguments":{}}]]"#, None, false),
        ("empty tool_calls", r#"{"role":"assistant","tool_calls":[]}"#, None, false),
        ("object tool_calls", r#"{"tool_calls":{"name":"f","arguments":{}}}"#, None, false),
        (
            "tool_calls with an ordinary object",
            r#"{"tool_calls":[{"name":"f","arguments":{}},{"name":"Alice"}]}"#,
            None,
            false,
        ),
        (
            "nested tool_calls",
            r#"{"tool_calls":[{"tool_calls":[{"name":"f","arguments":{}}]}]}"#,
            None,
            false,
        ),
        ("string", r#""{\"name\":\"f\",\"arguments\":{}}""#, None, false),
        ("number", "1", None, false),
        ("nothing", "", None, false),
        ("unclosed", r#"{"name":"f","arguments":{}"#, None, false),
        ("trailing text", r#"{"name":"f","arguments":{}} x"#, None, false),
        ("two values", r#"{"name":"f","arguments":{}}{"name":"f","arguments":{}}"#, None, false),
        ("invalid JSON", r#"{"name":"f","arguments":{},}"#, None, false),
        ("offered name", r#"{"name":"f","arguments":{}}"#, Some(&["g", "f"]), true),
        ("name not offered", r#"{"name":"f","arguments":{}}"#, Some(&["g"]), false),
        ("names are case-sensitive", r#"{"name":"f","arguments":{}}"#, Some(&["F"]), false),
        ("nothing offered", r#"{"name":"f","arguments":{}}"#, Some(&[]), false),
        ("escaped name", r#"{"name":"get\u005fweather","arguments":{}}"#, Some(&["get_weather"]), true),
        ("offered function string", r#"{"function":"f","arguments":{}}"#, Some(&["f"]), true),
        ("name before function", r#"{"name":"f","function":"g","arguments":{}}"#, Some(&["g"]), false),
        (
            "offered OpenAI name",
            r#"{"type":"function","function":{"name":"f","arguments":"{}"}}"#,
            Some(&["f"]),
            true,
        ),
        (
            "OpenAI name not offered",
            r#"{"type":"function","function":{"name":"f","arguments":"{}"}}"#,
            Some(&["g"]),
            false,
        ),
        (
            "every listed call offered",
            r#"[{"name":"f","arguments":{}},{"name":"g","arguments":{}}]"#,
            Some(&["f", "g"]),
            true,
        ),
        (
            "one listed call not offered",
            r#"[{"name":"f","arguments":{}},{"name":"g","arguments":{}}]"#,
            Some(&["f"]),
            false,
        ),
        (
            "tool_calls call not offered",
            r#"{"tool_calls":[{"name":"f","arguments":{}},{"name":"h","arguments":{}}]}"#,
            Some(&["f"]),
            false,
        ),
        (
            "tool_calls calls offered",
            r#"{"tool_calls":[{"name":"f","arguments":{}},{"name":"h","arguments":{}}]}"#,
            Some(&["h", "f"]),
            true,
        ),
    ];

    fn names(offered: Option<&[&str]>) -> Option<Vec<String>> {
        offered.map(|names| names.iter().map(|name| name.to_string()).collect())
    }

    #[test]
    fn call_table() {
        for &(name, text, offered, expected) in CALLS {
            let offered = names(offered);
            assert_eq!(is_tool_call(&units(text), offered.as_deref()), expected, "{name}: {text}");
        }
    }

    /// The shape check that skips known containers says what the full one
    /// says, given where every container ends (as the filter knows them),
    /// for every call of the table.
    #[test]
    fn skipping_known_containers_changes_no_answer() {
        for &(name, text, offered, expected) in CALLS {
            let text = units(text);
            if !is_one_container(&text) {
                continue;
            }
            let mut ends = std::collections::HashMap::new();
            let mut open = Vec::new();
            let mut scan = JsonScan::new();
            for (at, &unit) in text.iter().enumerate() {
                let depth = scan.depth();
                scan.step(unit);
                if scan.depth() > depth {
                    open.push(at);
                } else if scan.depth() < depth {
                    ends.insert(open.pop().unwrap(), at + 1);
                }
            }
            let offered = names(offered);
            let skipping = is_scanned_tool_call(&text, offered.as_deref(), &|at| ends.get(&at).copied());
            assert_eq!(skipping, expected, "{name}");
        }
    }

    #[test]
    fn names_are_compared_as_code_units() {
        let mut lone = units(r#"{"name":""#);
        lone.push(0xD800);
        lone.extend(units(r#"","arguments":{}}"#));
        assert!(is_tool_call(&lone, None));
        // A lone surrogate is not replaced, so it matches no offered name.
        assert!(!is_tool_call(&lone, Some(&["\u{FFFD}".to_string()])));

        let escaped_pair = units(r#"{"name":"\ud83d\ude00","arguments":{}}"#);
        assert!(is_tool_call(&escaped_pair, Some(&["😀".to_string()])));
        let escaped_lone = units(r#"{"name":"\ud83d","arguments":{}}"#);
        assert!(!is_tool_call(&escaped_lone, Some(&["\u{FFFD}".to_string()])));
    }

    #[test]
    fn depth_never_overflows_the_stack() {
        let depth = 10_000;
        let deep_arguments = format!(
            r#"{{"name":"f","arguments":{{"x":{}"s",{{"k":"]"}}{}}}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        assert!(is_tool_call(&units(&deep_arguments), None));
        let deep_message = format!(
            r#"{{"tool_calls":[{{"type":"function","function":{{"name":"f","arguments":{}{}}}}}],"z":{}{}}}"#,
            r#"{"a":"#.repeat(depth),
            "1".to_string() + &"}".repeat(depth),
            "[".repeat(depth),
            "]".repeat(depth)
        );
        assert!(is_tool_call(&units(&deep_message), None));
        let deep_array = "[".repeat(depth) + &"]".repeat(depth);
        assert!(!is_tool_call(&units(&deep_array), None));
    }

    /// The string value of the JSON text `literal` as serde_json reads it
    /// from [`readable`] text, back as units.
    fn read_back(literal: &[u16]) -> Option<Vec<u16>> {
        match serde_json::from_str::<serde_json::Value>(&readable(literal).0).ok()? {
            serde_json::Value::String(text) => Some(unmarked(&text)),
            _ => None,
        }
    }

    #[test]
    fn lone_surrogates_and_the_mark_survive_a_serde_json_read() {
        let mark: Vec<u16> = MARK.encode_utf16(&mut [0; 2]).to_vec();
        // (case, the literal's text, the units it holds)
        let cases: Vec<(&str, Vec<u16>, Vec<u16>)> = vec![
            ("plain", units(r#""météo""#), units("météo")),
            ("escaped", units(r#""m\u00e9t\u00e9o""#), units("météo")),
            (
                "a lone surrogate raw",
                [units("\"a"), vec![0xD800], units("b\"")].concat(),
                vec![0x61, 0xD800, 0x62],
            ),
            ("a lone surrogate escaped", units(r#""a\ud800b""#), vec![0x61, 0xD800, 0x62]),
            ("a lone low surrogate escaped", units(r#""\uDC00""#), vec![0xDC00]),
            ("a pair escaped", units(r#""\ud83c\udf24""#), units("🌤")),
            (
                "a pair, one unit escaped",
                [units(r#""\ud83c"#), vec![0xDF24], units("\"")].concat(),
                units("🌤"),
            ),
            ("two high surrogates", units(r#""\ud800\ud800""#), vec![0xD800, 0xD800]),
            ("a high surrogate, then another escape", units(r#""\ud800\n""#), vec![0xD800, 0x0A]),
            ("an escaped backslash before u", units(r#""\\ud800""#), units("\\ud800")),
            (
                "the mark itself",
                [units("\""), mark.clone(), vec![0xD800], units("\"")].concat(),
                [mark.clone(), vec![0xD800]].concat(),
            ),
            ("the mark escaped", units(r#""\udbff\udffd""#), mark.clone()),
        ];
        for (case, literal, expected) in cases {
            assert_eq!(read_back(&literal), Some(expected.clone()), "{case}");
            assert_eq!(string_units(&literal), Some(expected), "{case}: as is_tool_call reads it");
        }
    }

    #[test]
    fn every_unit_survives_a_serde_json_read_however_it_is_spelt() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let pool: Vec<u16> = [
            0x61, 0x22, 0x5C, 0x0A, 0xE9, 0xD800, 0xDBFF, 0xDB80, 0xDC00, 0xDFFD, 0xD83C, 0xDF24, 0xFFFD,
            0x75,
        ]
        .to_vec();
        for _ in 0..5000 {
            let length = (next() % 8) as usize;
            let held: Vec<u16> = (0..length).map(|_| pool[(next() % pool.len() as u64) as usize]).collect();
            // Each unit raw or escaped; quotes, backslashes and controls always escaped.
            let mut literal = units("\"");
            for &unit in &held {
                if matches!(unit, 0x22 | 0x5C | 0x0A) || next() % 2 == 0 {
                    literal.extend(units(&format!("\\u{unit:04x}")));
                } else {
                    literal.push(unit);
                }
            }
            literal.push(0x22);
            assert_eq!(read_back(&literal), Some(held.clone()), "{literal:?}");
            assert_eq!(string_units(&literal), Some(held), "{literal:?}");
        }
    }
}
