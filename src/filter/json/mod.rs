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
mod tests;
