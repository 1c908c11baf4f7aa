//! Tool-aware detection: a leaked call to one of the offered tools, found by
//! the tool's name in whatever markup carries it.
//!
//! A preset knows one family's markup. What every leaked call shares is that
//! it names a tool the model was offered, in a place where a call's name
//! goes, with its arguments next to it, inside whatever wrapper the family
//! uses. This stage reads exactly that:
//!
//! ```text
//! leak    = lead? opener* head args (separator opener* head args)* closer* stray*
//! lead    = word to= | word:            (at a line's start, a channel word before a distinctive
//!                                        head: `commentary to=functions.NAME`, `Lie:default_api:NAME`)
//!         | word\n                      (a lone lowercase word line before a tag head: `court`)
//! opener  = <|token|> | <｜token｜> | <|token> | <token|>       (special tokens: strong)
//!         | <tag …> | <｜NS｜tag …> | [MARKER]                (no HTML element: strong when the
//!                                                             name holds `tool` or `call`, else weak)
//!         | [                                                 (a list: bracket)
//!         | ```info\n                   (strong when the info holds `tool`, `call` or
//!                                        `function`; else it must hold a JSON call and no more)
//!         | word<|token|> | word: | word to=                  (after a wrapper only)
//! head    = <NAME …>args</NAME> | <tag … name="NAME" …>args</tag> | <tag=NAME>args</tag>
//!         | a JSON object or array of call objects naming NAME (straight or curly quotes)
//!         | {tool => "NAME", args => …}                       (strong only)
//!         | functions.NAME | to=functions.NAME | default_api:NAME | NAME[ARGS]  (distinctive)
//!         | NAME.call | NAME                                  (bare)
//! args    = JSON object (or a loose one, `{key:<|"|>v<|"|>}`, `{key:"v"}`; kept raw if it
//!           does not parse) | (pythonic, `k=v` or `k: v`)
//!         | <key>v</key>… | <parameter=k>v</parameter>… | <parameter name="k" string="true">v</parameter>…
//!         | <arg_key>k</arg_key><arg_value>v</arg_value>…    (the list ends at whatever is no pair)
//! gap     = between a bare name and its arguments: space, `:0`, special tokens, markers,
//!           a ```json fence, up to two short lowercase words (`commentary json`), and
//!           after a distinctive head a run of stray non-ASCII (a garbled stream's)
//! closer  = </tag> (or <end_X> for <start_X>) for each tag opened, ], [/MARKER],
//!           ``` for a fence (required), any special token
//! stray   = a special token, or a closing tag whose name holds `tool` or `call`,
//!           that nothing opened; under `openSpanAtEnd: 'drop'`, one the end cut off
//! ```
//!
//! A leak's calls are read out: the tool (its index in the list) and the
//! arguments as JSON (a parameter tag's text is JSON when it parses as a
//! number, boolean, null, object or array, else a string with one line break
//! trimmed at each end; `string="true"` keeps it a string), or the raw text
//! when they do not parse.
//!
//! A name is compared unit for unit, in any script: `<météo>…</météo>` is a
//! tag head for an offered `météo` (a tag's own name goes beyond ASCII, or
//! past 64 units, only as an offered tool's), and a JSON call's name is
//! read with its escapes, so `m\u00e9t\u00e9o` and a lone `\ud800`, raw or
//! escaped, name the tool they spell.
//!
//! # Precision: what keeps a clean answer clean
//!
//! Changing a user's code or document is worse than missing a leak, so where
//! a text could be either, it is left alone:
//!
//! - A head must name an offered tool exactly, in a name position: the tag's
//!   own name, its `name` (`tool`, `tool_name`, `function`, `toolName`)
//!   attribute or its `<tag=NAME>` value, a JSON call's name key, or a bare
//!   name at a word's start. Every other attribute of a tag head must be a
//!   call's (`id`, `type`, `index`, `call_id`, `tool_call_id`), so an XML
//!   element that merely has a `name` (BPEL's `<invoke name="…"
//!   partnerLink="…">`, JasperReports' `<parameter name="…" class="…"/>`) is
//!   not a call, and neither is an HTML element named by attribute
//!   (`<select name="…">`). A tag head's body must be arguments and nothing
//!   else; an empty one is a call only inside a strong wrapper.
//! - A tool's definition is not a call: a JSON object with a key outside a
//!   call's vocabulary (`description`, `model`, `version`, …), arguments that
//!   are a JSON Schema (both `type` and `properties`), a tag head whose body
//!   has a `<description>` element.
//! - A JSON call with no wrapper around it must begin its line (after
//!   indentation) or follow another leak: a call-shaped object inside a
//!   sentence is prose.
//! - Wrappers come in strengths, and a bare `NAME` needs one: JSON or
//!   parameter-tag arguments at least a weak wrapper; pythonic `NAME(…)` at
//!   least a list bracket, with arguments that parse unless the wrapper is
//!   strong; no arguments at all (`<tool_call>NAME</tool_call>`) a strong one.
//!   A special token right after the name also makes it a call
//!   (`NAME:0<|…|>{…}`, a section whose opener was lost). So DocBook's
//!   `<function>sprintf</function>` and `<parameter>fd</parameter>`, prose's
//!   `get_weather(city)` and `[search]` stay text. A list bracket or a marker
//!   that names no tool or call counts as a wrapper only at a line's start:
//!   `see [get_weather(city="x")]` and `[NOTE] get_weather(city="x")` in a
//!   sentence are prose.
//! - A fenced code block (a fence at a line's start, after indentation) is
//!   code. It is a leak only when the whole block is: a fence named for tools
//!   (` ```tool_call `) around calls, or any other fence around JSON calls and
//!   nothing else, up to the closing fence. Otherwise nothing in the block is
//!   read until its closing fence (a line of at least as many backticks and
//!   nothing else), so a Python, shell, XML or text sample that shows or even
//!   makes a call is left as it is. The rule's one ambiguity: a document that
//!   shows a bare JSON call to an offered tool alone in its own fence reads
//!   exactly as a leaked fenced call (the shape Qwen2.5-Coder and Llama 3.2
//!   leak), and is stripped.
//! - Inline code is code: nothing is tried after an odd number of backticks
//!   on its line. A list bracket followed by `(` is a markdown link's text.
//! - The lead words are taken only at a line's start: a channel word before
//!   `to=functions.` (or glued by `:` to a distinctive head), and a lone
//!   lowercase word of 2 to 16 letters alone on its line when the next line
//!   begins with a tag head.
//! - A stray closer is taken only right after a leak (space between), and
//!   only if its name holds `tool` or `call`: `</tool_call>` after
//!   `<function=…>…</function>`, never a document's `</config>`.
//! - Under `openSpanAtEnd: 'drop'`, a text that ends inside a leak is dropped
//!   from the leak's start only if a head had already named an offered tool
//!   where a call's name goes (or a JSON value showed a whole call object): a
//!   text that merely ends after a tool's name is the answer's.
//!
//! Calls separated only by space, `,` or `;` belong to one leak while a
//! wrapper holds them; when none follows, the innermost wrapper is closed
//! (a call's own) and more calls are looked for under the rest. With no
//! wrapper, each call is a leak of its own and the text between them stays.
//!
//! # Streaming, and its cost
//!
//! The stage emits everything up to the next unit where a leak could begin
//! (`<`, `[`, `{`, a fence or a letter at a line's start, a tool's name,
//! `functions.`, `to=` or `default_api` at a word's start) and tries to read
//! a leak there. A try that fails on an opener or head gives up within a
//! bounded distance; one that fails inside a JSON value that is not a call
//! leaves the rest of that value to a one-pass JSON scan, and one at a fence
//! leaves the rest of the code block to a one-pass fence scan, so nothing
//! inside them is tried again. A try that runs out of text (a name that a
//! longer offered name could still continue included) holds the candidate
//! and is repeated only once the held text has grown by half, so the
//! re-reading adds up to a constant factor of the text. At the flush the
//! text is complete: nothing is held back, and what no leak took is text.
//!
//! What else a failed try reads (an element that never closes, a long value
//! followed by the wrong closer) is paid from a reading credit: every unit
//! the stage passes earns [`CREDIT_PER_UNIT`], every failed try spends what
//! it read beyond its start, and while the credit is spent no try is made.
//! Ordinary text never comes near the limit; a text built to make every try
//! read to its end has some candidates passed over as text, and time stays
//! linear. The credit depends on the text alone, not on where the chunks were
//! cut, so the output is the same for every chunking.
//!
//! Every index is checked and every loop bounded by the text or a constant;
//! nothing recurses but the arguments' parsers, which stop at a fixed depth.

use std::cell::Cell;

use aho_corasick::packed::{self, Searcher};
use aho_corasick::{AhoCorasick, AhoCorasickKind, Input};
use serde_json::{Map, Value};

use crate::filter::json::{readable, shows_tool_call, string_units, unmarked, JsonScan, Step};
use crate::filter::scan::find_any;
use crate::filter::strip::{OpenSpanPolicy, Options, ParsedCall, StripLog, StripReason};
use crate::filter::tool_names::{first_fault, Tool, MAX_NAME};

/// Why a tool list cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolsError {
    /// The index of the tool at fault.
    pub tool: usize,
    pub reason: String,
}

/// The offered tools, checked (see [`crate::filter::tool_names`]): names
/// non-empty, at most [`MAX_NAME`] units, without line breaks, and distinct.
#[derive(Clone, Debug)]
pub struct Tools {
    tools: Vec<Tool>,
    /// Whether some name begins with this unit (ASCII only; others always
    /// answer yes and are compared).
    first: [bool; 128],
    /// The longest name, in code units.
    longest: usize,
    /// Finds, in the text narrowed to a byte a unit, an offered name or a distinctive prefix
    /// (`functions.`, `to=`, `default_api`), wherever it stands: the only
    /// places where a bare head can begin a leak mid-line. Built once per
    /// tool list; a multi-literal search, so prose is skipped at memory
    /// speed instead of word by word.
    leads: Leads,
}

/// The search for leads: packed (Teddy, built in a few microseconds) where
/// it can be, which is up to 128 literals on x86-64 and AArch64; else an
/// automaton (for a longer tool list, or another processor).
#[derive(Clone, Debug)]
enum Leads {
    Packed(Searcher),
    Automaton(AhoCorasick),
}

impl Leads {
    fn new(literals: &[Vec<u8>]) -> Option<Leads> {
        // Fat Teddy first (16 buckets, AVX2): a tool list's names share
        // their first letters with English words, and fewer literals to a
        // bucket means fewer false candidates to verify.
        let packed = |fat| {
            packed::Config::new()
                .match_kind(packed::MatchKind::LeftmostFirst)
                .heuristic_pattern_limits(false)
                .only_teddy_fat(fat)
                .builder()
                .extend(literals)
                .build()
        };
        match packed(Some(true)).or_else(|| packed(None)) {
            Some(searcher) => Some(Leads::Packed(searcher)),
            None => AhoCorasick::builder()
                .match_kind(aho_corasick::MatchKind::LeftmostFirst)
                .kind(Some(AhoCorasickKind::DFA))
                .build(literals)
                .ok()
                .map(Leads::Automaton),
        }
    }

    /// Where the first literal at or after `from` begins.
    fn find(&self, narrow: &[u8], from: usize) -> Option<usize> {
        match self {
            Leads::Packed(searcher) => searcher.find_in(narrow, aho_corasick::Span::from(from..narrow.len())),
            Leads::Automaton(automaton) => automaton.find(Input::new(narrow).range(from..)),
        }
        .map(|found| found.start())
    }
}

impl Tools {
    /// Checks `tools` and compiles the search for their names.
    pub fn new(tools: Vec<Tool>) -> Result<Self, ToolsError> {
        Tools::check(&tools)?;
        let mut first = [false; 128];
        for tool in &tools {
            if let Some(byte) = ascii(tool.name[0]) {
                first[usize::from(byte)] = true;
            }
        }
        let longest = tools.iter().map(|tool| tool.name.len()).max().unwrap_or(0);
        // Narrowed as the text is (see `narrow_into`): a byte a unit.
        let literals: Vec<Vec<u8>> = tools
            .iter()
            .map(|tool| tool.name.iter().copied().map(narrowed).collect())
            .chain(LEAD_PREFIXES.iter().map(|prefix| prefix.as_bytes().to_vec()))
            .collect();
        let leads = Leads::new(&literals)
            .ok_or_else(|| ToolsError { tool: 0, reason: "the tool list cannot be searched".to_owned() })?;
        Ok(Tools { tools, first, longest, leads })
    }

    /// What [`Tools::new`] asks of a list, without compiling it: that
    /// [`usable_tools`](crate::filter::tool_names::usable_tools) would keep it
    /// whole. The error names the first tool it would not.
    pub fn check(tools: &[Tool]) -> Result<(), ToolsError> {
        match first_fault(tools) {
            Some(fault) => Err(ToolsError { tool: fault.index, reason: fault.reason.message().to_owned() }),
            None => Ok(()),
        }
    }

    pub fn list(&self) -> &[Tool] {
        &self.tools
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Whether `rest` begins with an offered name, or is cut off inside
    /// one (a name and `rest` agree on every unit both have).
    fn name_may_begin(&self, rest: &[u16]) -> bool {
        let Some(&unit) = rest.first() else { return false };
        if ascii(unit).is_some_and(|byte| !self.first[usize::from(byte)]) {
            return false;
        }
        self.tools.iter().any(|tool| tool.name[0] == unit && tool.name.iter().zip(rest).all(|(a, b)| a == b))
    }

    /// The tool whose name is exactly `units`.
    fn named(&self, units: &[u16]) -> Option<usize> {
        self.tools.iter().position(|tool| tool.name == units)
    }

    /// The tool that the JSON string literal `quoted` (quotes included)
    /// names, its escapes read (`m\u00e9t\u00e9o`, a lone `\ud800`).
    fn json_named(&self, quoted: &[u16]) -> Option<usize> {
        match quoted.get(1..quoted.len().saturating_sub(1)) {
            Some(inner) if !inner.contains(&u16::from(b'\\')) => self.named(inner),
            _ => self.named(&string_units(quoted)?),
        }
    }

    /// The longest name that `text[at..]` begins with, or `More` when the
    /// text may still grow and ends inside a name that could still match.
    fn name_at(&self, text: &[u16], at: usize, complete: bool) -> Reading<Option<(usize, usize)>> {
        let rest = &text[at.min(text.len())..];
        let mut best: Option<(usize, usize)> = None;
        let mut partial = false;
        for (index, tool) in self.tools.iter().enumerate() {
            let name = &tool.name[..];
            if rest.len() >= name.len() {
                if rest.starts_with(name) && best.is_none_or(|(_, end)| at + name.len() > end) {
                    best = Some((index, at + name.len()));
                }
            } else if name.starts_with(rest) {
                partial = true;
            }
        }
        // A longer name may still be spelled out: wait for it.
        if partial && !complete {
            return Err(Stop::More);
        }
        Ok(best)
    }

    fn accepts_key(&self, tool: usize, key: &str) -> bool {
        match &self.tools[tool].parameters {
            None => true,
            Some(parameters) => parameters.iter().any(|p| String::from_utf16_lossy(p) == key),
        }
    }
}

/// Why a read stopped short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// Not a leak here.
    No,
    /// The text ended before it could be decided.
    More,
}

type Reading<T> = Result<T, Stop>;

/// A leak read whole: where it ends and the calls in it.
#[derive(Debug)]
struct Leak {
    end: usize,
    calls: Vec<ParsedCall>,
}

/// Openers, calls and where the last call ends.
type OneCall = (Vec<Closer>, Level, Vec<ParsedCall>, usize);

/// How far before its head a leak's openers may reach.
const MAX_OPENERS: usize = 256;
/// The longest special token, marker, tag or word an opener reads.
const MAX_TOKEN: usize = 64;
/// How deep the parts of a JSON call that are not its arguments may nest.
const MAX_CALL_DEPTH: usize = 6;
/// The longest lead word (a channel name before `to=`).
const MAX_WORD: usize = 32;
/// How many stray closers and end tokens a leak takes after it.
const MAX_STRAYS: usize = 8;
/// What the gap between a bare name and its arguments may hold: this many
/// short words (`commentary json`), and this many other units.
const MAX_GAP_WORDS: usize = 2;
const MAX_GAP_JUNK: usize = 32;
/// The reading credit each unit the stage passes earns, and what it starts
/// with (see the module doc).
pub(crate) const CREDIT_PER_UNIT: i64 = 8;
const CREDIT_START: i64 = 1 << 16;

/// The call prefixes that make a bare name distinctive.
const DISTINCTIVE: [&str; 4] = ["to=functions.", "functions.", "default_api:", "default_api."];

/// How strongly the openers read so far say "a call follows".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    /// No wrapper.
    None,
    /// A list bracket `[`.
    Bracket,
    /// A tag or marker that is no HTML element and names no tool or call.
    Weak,
    /// A special token, or a tag, marker or fence named for tools or calls.
    Strong,
}

/// What a wrapper opened and how it closes.
#[derive(Clone, Debug)]
enum Closer {
    /// `</name>` (or `<end_X>` for `<start_X>`).
    Tag(Vec<u16>),
    /// Any special tokens (none needed).
    Tokens,
    /// `]`.
    Bracket,
    /// `[/NAME]` or `[END_NAME]`, if present.
    Marker(Vec<u16>),
    /// A closing fence: required.
    Fence,
    /// Nothing.
    Nothing,
}

/// Reads leaks in a text that may still grow.
#[derive(Clone, Copy)]
struct Reader<'a> {
    text: &'a [u16],
    tools: &'a Tools,
    /// The text is complete: running out of it is an answer, not a wait.
    complete: bool,
    /// Whether only spaces and tabs stand between the candidate and the
    /// start of its line (or the end of the last leak, or of the text).
    blank: bool,
    /// The furthest unit read, for the reading credit.
    far: &'a Cell<usize>,
    /// The text is complete and what it cut off is dropped: a special token
    /// or closer cut off right after a leak goes with it.
    cut: bool,
    /// Whether a head has named an offered tool where, wrapped as it is, a
    /// call's name goes (so a text that ends after it ends inside a call).
    named: &'a Cell<bool>,
}

impl Reader<'_> {
    fn get(&self, at: usize) -> Option<u16> {
        if at > self.far.get() {
            self.far.set(at);
        }
        self.text.get(at).copied()
    }

    fn unit(&self, at: usize) -> Reading<u16> {
        match self.get(at) {
            Some(unit) => Ok(unit),
            None if self.complete => Err(Stop::No),
            None => Err(Stop::More),
        }
    }

    /// The unit at `at`, or `None` at the end of a complete text.
    fn peek(&self, at: usize) -> Reading<Option<u16>> {
        match self.unit(at) {
            Ok(unit) => Ok(Some(unit)),
            Err(Stop::No) => Ok(None),
            Err(more) => Err(more),
        }
    }

    fn byte(&self, at: usize) -> Reading<Option<u8>> {
        self.unit(at).map(ascii)
    }

    fn is(&self, at: usize, byte: u8) -> Reading<bool> {
        Ok(self.byte(at)? == Some(byte))
    }

    /// Like [`is`](Self::is), but the end of a complete text is a `false`.
    fn is_there(&self, at: usize, byte: u8) -> Reading<bool> {
        Ok(self.peek(at)?.and_then(ascii) == Some(byte))
    }

    /// Whether `literal` is at `at` (waiting while the text is a prefix).
    fn literal(&self, at: usize, literal: &str) -> Reading<bool> {
        self.spelled_at(at, literal.encode_utf16())
    }

    /// Whether `units` are at `at` (waiting while the text is a prefix).
    fn units(&self, at: usize, units: &[u16]) -> Reading<bool> {
        self.spelled_at(at, units.iter().copied())
    }

    fn spelled_at(&self, at: usize, units: impl Iterator<Item = u16>) -> Reading<bool> {
        for (offset, unit) in units.enumerate() {
            match self.get(at + offset) {
                Some(found) if found == unit => {}
                Some(_) => return Ok(false),
                None if self.complete => return Ok(false),
                None => return Err(Stop::More),
            }
        }
        Ok(true)
    }

    /// The first position from `at` that is not whitespace.
    fn skip_space(&self, mut at: usize) -> Reading<usize> {
        while self.byte(at)?.is_some_and(is_space) {
            at += 1;
        }
        Ok(at)
    }

    /// Like [`skip_space`](Self::skip_space), but the end of a complete
    /// text is a place too.
    fn skip_space_to_end(&self, at: usize) -> Reading<usize> {
        match self.skip_space(at) {
            Err(Stop::No) if self.complete => Ok(self.text.len().max(at)),
            other => other,
        }
    }

    /// The first position from `at` that is no space or tab (the end of a
    /// complete text is one).
    fn skip_blank(&self, mut at: usize) -> Reading<usize> {
        while matches!(self.peek(at)?.and_then(ascii), Some(b' ' | b'\t')) {
            at += 1;
        }
        Ok(at)
    }

    /// The offered tool whose name begins at `at`, and where it ends.
    fn name_at(&self, at: usize) -> Reading<Option<(usize, usize)>> {
        self.get(at + self.tools.longest);
        self.tools.name_at(self.text, at, self.complete)
    }

    /// A whole leak beginning at `start`.
    fn leak(&self, start: usize) -> Reading<Leak> {
        let (mut stack, level, mut calls, mut end) = self.one_call(start, true, Level::None)?;
        // More calls under the wrappers still open; when none follows, the
        // innermost wrapper is closed (a call's own, say) and more calls
        // are looked for under the rest.
        while !stack.is_empty() {
            loop {
                let mut at = self.skip_space_to_end(end)?;
                if self.peek(at)?.is_some_and(|u| u == u16::from(b',') || u == u16::from(b';')) {
                    at = self.skip_space_to_end(at + 1)?;
                }
                if at >= self.text.len() && self.complete {
                    break;
                }
                match self.one_call(at, false, level) {
                    Ok((more_stack, _, more, next)) => {
                        calls.extend(more);
                        end = self.close(&more_stack, next)?;
                    }
                    Err(Stop::No) => break,
                    Err(Stop::More) => return Err(Stop::More),
                }
            }
            let Some(closer) = stack.pop() else { break };
            end = self.close(std::slice::from_ref(&closer), end)?;
        }
        end = self.strays(end)?;
        // A markdown link's text: `[…](url)`.
        let after = self.peek(end)?;
        if self.text.get(end.wrapping_sub(1)) == Some(&u16::from(b']')) && after == Some(u16::from(b'(')) {
            return Err(Stop::No);
        }
        Ok(Leak { end, calls })
    }

    /// Openers, then a head with its arguments. `first`: this is where the
    /// candidate began; `inherited`: the wrappers around it.
    fn one_call(&self, start: usize, first: bool, inherited: Level) -> Reading<OneCall> {
        if first && self.blank {
            match self.lead(start) {
                Ok(Some(found)) => return Ok(found),
                Ok(None) | Err(Stop::No) => {}
                Err(more) => return Err(more),
            }
        }
        let mut stack = Vec::new();
        let mut level = inherited;
        let mut at = start;
        // After a fence that names no tool: a JSON call, or code.
        let mut json_only = false;
        loop {
            let opening = first && at == start;
            if json_only && !matches!(self.byte(at)?, Some(b'{' | b'[')) {
                return Err(Stop::No);
            }
            if let Some((calls, end)) = self.head(at, level)? {
                return Ok((stack, level, calls, end));
            }
            if json_only {
                return Err(Stop::No);
            }
            let Some((closer, next, raised)) = self.opener(at, level, opening)? else {
                return Err(Stop::No);
            };
            json_only = matches!(closer, Closer::Fence) && raised == Level::None;
            stack.push(closer);
            level = level.max(raised);
            at = self.skip_space(next)?;
            if at - start > MAX_OPENERS {
                return Err(Stop::No);
            }
        }
    }

    /// A lead word at a line's start: a channel word before
    /// `to=functions.NAME`, or a lone lowercase word on its line before a
    /// tag head (a mangled opener, `court`).
    fn lead(&self, start: usize) -> Reading<Option<OneCall>> {
        let mut i = start;
        while i - start < MAX_WORD && self.byte(i)?.is_some_and(|b| b.is_ascii_alphabetic()) {
            i += 1;
        }
        if i == start {
            return Ok(None);
        }
        // A channel word (`commentary to=functions.NAME`), or a garbled one
        // glued to a distinctive head (`Lie:default_api:NAME{…}`).
        let mut glued = false;
        if self.is_there(i, b':')? {
            for prefix in DISTINCTIVE {
                glued |= self.literal(i + 1, prefix)?;
            }
        }
        if glued || self.literal(i, " to=functions.")? {
            return Ok(self
                .bare_head(i + 1, Level::None)?
                .map(|(call, end)| (Vec::new(), Level::None, vec![call], end)));
        }
        let word = &self.text[start..i];
        if !(2..=16).contains(&word.len())
            || !word.iter().all(|&u| ascii(u).is_some_and(|b| b.is_ascii_lowercase()))
        {
            return Ok(None);
        }
        let mut j = self.skip_blank(i)?;
        if self.is_there(j, b'\r')? {
            j += 1;
        }
        if !self.is_there(j, b'\n')? {
            return Ok(None);
        }
        let head = self.skip_blank(j + 1)?;
        if !self.is_there(head, b'<')? {
            return Ok(None);
        }
        Ok(self.tag_head(head, Level::None)?.map(|(call, end)| (Vec::new(), Level::None, vec![call], end)))
    }

    /// Whether a leak that failed at `at` in a complete text failed because
    /// the text ended after it had named an offered tool.
    fn cut_off_call(&self, at: usize) -> bool {
        let names: Vec<String> =
            self.tools.list().iter().map(|tool| String::from_utf16_lossy(&tool.name)).collect();
        let open = Reader { complete: false, ..*self };
        self.named.set(false);
        match open.leak(at) {
            Err(Stop::More) => {
                self.named.get()
                    || (matches!(ascii(self.text[at]), Some(b'{' | b'['))
                        && shows_tool_call(&self.text[at..], Some(&names)))
            }
            _ => false,
        }
    }

    /// The closers of `stack`, innermost first, from `at`; what is missing
    /// is skipped, but for a fence's.
    fn close(&self, stack: &[Closer], mut at: usize) -> Reading<usize> {
        for closer in stack.iter().rev() {
            let from = self.skip_space_to_end(at)?;
            let found = match closer {
                Closer::Tag(name) => self.closing_tag(from, name)?,
                Closer::Bracket => self.is_there(from, b']')?.then_some(from + 1),
                Closer::Marker(name) => self.end_marker(from, name)?,
                Closer::Fence => match self.literal(from, "```")? {
                    true => Some(from + 3),
                    false => return Err(Stop::No),
                },
                Closer::Tokens => {
                    let after = self.tokens(from)?;
                    (after > from).then_some(after)
                }
                Closer::Nothing => None,
            };
            if let Some(end) = found {
                at = end;
            }
        }
        Ok(at)
    }

    /// `</name>` at `at`, or `<end_X>` when `name` is `start_X`: where it ends.
    fn closing_tag(&self, at: usize, name: &[u16]) -> Reading<Option<usize>> {
        let mut tag = vec![u16::from(b'<'), u16::from(b'/')];
        tag.extend_from_slice(name);
        tag.push(u16::from(b'>'));
        if self.units(at, &tag)? {
            return Ok(Some(at + tag.len()));
        }
        let start: Vec<u16> = "start_".encode_utf16().collect();
        if let Some(rest) = name.strip_prefix(&start[..]) {
            let mut end: Vec<u16> = "<end_".encode_utf16().collect();
            end.extend_from_slice(rest);
            end.push(u16::from(b'>'));
            if self.units(at, &end)? {
                return Ok(Some(at + end.len()));
            }
        }
        Ok(None)
    }

    /// Special tokens and stray closers right after a leak (space between
    /// allowed): where they end, `at` if there are none.
    fn strays(&self, mut at: usize) -> Reading<usize> {
        for _ in 0..MAX_STRAYS {
            let from = self.skip_space_to_end(at)?;
            if let Some(end) = optional(self.special_token(from))? {
                at = end;
                continue;
            }
            match optional(self.tag(from))? {
                Some(tag) if tag.closing && is_toolish(&tag.name) && !is_html(&tag.name) => at = tag.end,
                _ => {
                    // A token or closer the end cut off.
                    let open = Reader { complete: false, ..*self };
                    let cut_off = self.cut
                        && from < self.text.len()
                        && (open.special_token(from) == Err(Stop::More)
                            || (matches!(open.literal(from, "</"), Ok(true) | Err(Stop::More))
                                && matches!(open.tag(from), Err(Stop::More))));
                    if cut_off {
                        at = self.text.len();
                    }
                    break;
                }
            }
        }
        Ok(at)
    }

    /// Special tokens back to back from `at` (space between them allowed):
    /// where they end, `at` if there are none.
    fn tokens(&self, at: usize) -> Reading<usize> {
        let mut end = at;
        loop {
            let from = if end == at { at } else { self.skip_space_to_end(end)? };
            match optional(self.special_token(from))? {
                Some(after) => end = after,
                None => return Ok(end),
            }
        }
    }

    /// `[/NAME]` or `[END_NAME]` at `at`: where it ends.
    fn end_marker(&self, at: usize, name: &[u16]) -> Reading<Option<usize>> {
        for prefix in ["[/", "[END_"] {
            let mut marker: Vec<u16> = prefix.encode_utf16().collect();
            marker.extend_from_slice(name);
            marker.push(u16::from(b']'));
            if self.units(at, &marker)? {
                return Ok(Some(at + marker.len()));
            }
        }
        Ok(None)
    }

    /// A special token at `at`: `<|…|>`, `<｜…｜>`, or one of Gemma 4's
    /// halves, `<|word>` and `<word|>`. Where it ends.
    fn special_token(&self, at: usize) -> Reading<Option<usize>> {
        if !self.is(at, b'<')? {
            return Ok(None);
        }
        let second = self.unit(at + 1)?;
        if second == u16::from(b'|') || second == FULL_BAR {
            let mut i = at + 2;
            while i - at <= MAX_TOKEN {
                let unit = self.unit(i)?;
                if unit == second {
                    return Ok(self.is(i + 1, b'>')?.then_some(i + 2));
                }
                if unit == u16::from(b'>') {
                    let word = i > at + 2 && self.text[at + 2..i].iter().all(|&u| is_word(u));
                    return Ok((second == u16::from(b'|') && word).then_some(i + 1));
                }
                if unit == u16::from(b'<') || unit == u16::from(b'\n') {
                    return Ok(None);
                }
                i += 1;
            }
            return Ok(None);
        }
        let mut i = at + 1;
        while i - at <= MAX_TOKEN {
            let unit = self.unit(i)?;
            if is_word(unit) {
                i += 1;
            } else if unit == u16::from(b'|') && i > at + 1 {
                return Ok(self.is(i + 1, b'>')?.then_some(i + 2));
            } else {
                return Ok(None);
            }
        }
        Ok(None)
    }

    /// An opener at `at`: its closer, where it ends, and the level it
    /// raises the wrapping to. `opening`: the candidate begins here.
    fn opener(&self, at: usize, level: Level, opening: bool) -> Reading<Option<(Closer, usize, Level)>> {
        let Some(byte) = self.byte(at)? else {
            return Ok(None);
        };
        match byte {
            b'<' => {
                if let Some(end) = self.special_token(at)? {
                    return Ok(Some((Closer::Tokens, end, Level::Strong)));
                }
                let Some(tag) = self.tag(at)? else { return Ok(None) };
                if tag.closing || tag.self_closing || is_html(&tag.name) {
                    return Ok(None);
                }
                let raised = if is_toolish(&tag.name) { Level::Strong } else { Level::Weak };
                Ok(Some((Closer::Tag(tag.name), tag.end, raised)))
            }
            b'[' => {
                // [MARKER]
                let mut i = at + 1;
                while i - at <= MAX_TOKEN {
                    match self.byte(i)? {
                        Some(b'A'..=b'Z' | b'_' | b'0'..=b'9') => i += 1,
                        Some(b']') if i - at >= 3 => {
                            let name = self.text[at + 1..i].to_vec();
                            let raised = match is_toolish(&name) {
                                true => Level::Strong,
                                // `[NOTE]` in a sentence says nothing.
                                false if opening && !self.blank => Level::None,
                                false => Level::Weak,
                            };
                            return Ok(Some((Closer::Marker(name), i + 1, raised)));
                        }
                        _ => break,
                    }
                }
                // A list of calls begins its line; `[` in a sentence says nothing.
                let raised = if opening && !self.blank { Level::None } else { Level::Bracket };
                Ok(Some((Closer::Bracket, at + 1, raised)))
            }
            b'`' if (opening && self.blank) || (!opening && level >= Level::Weak) => {
                if !self.literal(at, "```")? {
                    return Ok(None);
                }
                let mut i = at + 3;
                while i - at <= MAX_TOKEN {
                    match self.byte(i)? {
                        Some(b'\n') => {
                            let info = String::from_utf16_lossy(&self.text[at + 3..i]).to_ascii_lowercase();
                            let tool = ["tool", "call", "function"].iter().any(|w| info.contains(w));
                            let raised = if tool { Level::Strong } else { Level::None };
                            return Ok(Some((Closer::Fence, i + 1, raised)));
                        }
                        Some(b'`') => return Ok(None),
                        _ => i += 1,
                    }
                }
                Ok(None)
            }
            _ if level > Level::None => {
                // A word that belongs to the wrapper: `function<｜tool▁sep｜>`,
                // `call:`, `commentary to=`.
                let mut i = at;
                while i - at < MAX_WORD
                    && self.byte(i)?.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
                {
                    i += 1;
                }
                if i == at {
                    return Ok(None);
                }
                if optional(self.special_token(i))?.is_some() {
                    return Ok(Some((Closer::Nothing, i, Level::None)));
                }
                if self.is_there(i, b':')? && !self.is_there(i + 1, b'/')? {
                    return Ok(Some((Closer::Nothing, i + 1, Level::None)));
                }
                if self.literal(i, " to=")? {
                    return Ok(Some((Closer::Nothing, i + 1, Level::None)));
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// A tag at `at` (`<name attrs>`, `</name>`, `<name/>`, `<name=value>`,
    /// the name perhaps behind a `｜NS｜` namespace).
    fn tag(&self, at: usize) -> Reading<Option<Tag>> {
        if !self.is(at, b'<')? {
            return Ok(None);
        }
        let mut i = at + 1;
        let closing = self.is(i, b'/')?;
        if closing {
            i += 1;
        }
        let name_start = i;
        let bar = self.unit(i)?;
        if bar == u16::from(b'|') || bar == FULL_BAR {
            let mut j = i + 1;
            loop {
                let unit = self.unit(j)?;
                if unit == bar {
                    break;
                }
                if !is_word(unit) || j - i > MAX_TOKEN {
                    return Ok(None);
                }
                j += 1;
            }
            if j == i + 1 {
                return Ok(None);
            }
            i = j + 1;
        }
        let local = i;
        while i - local <= MAX_TOKEN && self.byte(i)?.is_some_and(is_tag_name_byte) {
            i += 1;
        }
        let ascii_start = self.byte(local)?.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
        // A name that goes on past that, in a unit beyond ASCII or past
        // MAX_TOKEN, is a tag's only when it is an offered tool's, whole
        // (`<météo>`, `</天气>`): so a tool is named in any script.
        let goes_on = self.peek(i)?.is_some_and(is_tag_name_unit);
        if goes_on && (ascii_start || i == local) {
            match self.name_at(local)? {
                Some((_, end))
                    if end > i && self.text[local..end].iter().all(|&unit| is_tag_name_unit(unit)) =>
                {
                    i = end
                }
                _ => return Ok(None),
            }
        } else if i == local || !ascii_start {
            return Ok(None);
        }
        let name = self.text[name_start..i].to_vec();
        let mut attributes = Vec::new();
        // `<name=value>`, the value perhaps a tool's name with spaces in it.
        if !closing && self.is(i, b'=')? {
            let value_at = i + 1;
            let named = match self.name_at(value_at)? {
                Some((_, end))
                    if matches!(self.byte(end)?, Some(b'>' | b' ' | b'/' | b'\n' | b'\t' | b'\r')) =>
                {
                    Some((self.text[value_at..end].to_vec(), end))
                }
                _ => None,
            };
            let (value, next) = match named {
                Some(found) => found,
                None => self.attribute_value(value_at)?.ok_or(Stop::No)?,
            };
            attributes.push((Vec::new(), value));
            i = next;
        }
        loop {
            let before = i;
            i = self.skip_space(i)?;
            match self.byte(i)? {
                Some(b'>') => {
                    return Ok(Some(Tag { name, attributes, end: i + 1, closing, self_closing: false }));
                }
                Some(b'/') if self.is(i + 1, b'>')? => {
                    return Ok(Some(Tag { name, attributes, end: i + 2, closing, self_closing: true }));
                }
                Some(b) if (b.is_ascii_alphabetic() || b == b'_') && i > before && !closing => {
                    let key_start = i;
                    while self
                        .byte(i)?
                        .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b':'))
                    {
                        i += 1;
                        if i - key_start > MAX_TOKEN {
                            return Ok(None);
                        }
                    }
                    let key = self.text[key_start..i].to_vec();
                    if self.is(i, b'=')? {
                        let Some((value, next)) = self.attribute_value(i + 1)? else { return Ok(None) };
                        attributes.push((key, value));
                        i = next;
                    } else {
                        attributes.push((key, Vec::new()));
                    }
                }
                _ => return Ok(None),
            }
            // Room for the longest name an attribute may hold, and more.
            if i - at > MAX_OPENERS + MAX_NAME {
                return Ok(None);
            }
        }
    }

    /// An attribute's value at `at`: quoted, or bare up to space or `>`.
    fn attribute_value(&self, at: usize) -> Reading<Option<(Vec<u16>, usize)>> {
        let quote = self.byte(at)?;
        if let Some(q @ (b'"' | b'\'')) = quote {
            let mut i = at + 1;
            loop {
                let unit = self.unit(i)?;
                if unit == u16::from(q) {
                    return Ok(Some((self.text[at + 1..i].to_vec(), i + 1)));
                }
                if unit == u16::from(b'\n') || i - at > MAX_NAME + 2 {
                    return Ok(None);
                }
                i += 1;
            }
        }
        let mut i = at;
        loop {
            match self.byte(i)? {
                Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\'' | b'<') => break,
                Some(b'/') if self.is(i + 1, b'>')? => break,
                _ => i += 1,
            }
            if i - at > MAX_NAME {
                return Ok(None);
            }
        }
        Ok((i > at).then(|| (self.text[at..i].to_vec(), i)))
    }

    /// A head with its arguments at `at`: the calls and where they end.
    fn head(&self, at: usize, level: Level) -> Reading<Option<(Vec<ParsedCall>, usize)>> {
        let one = |head: Option<(ParsedCall, usize)>| head.map(|(call, end)| (vec![call], end));
        match self.byte(at)? {
            Some(b'<') => self.tag_head(at, level).map(one),
            Some(byte @ (b'{' | b'[')) => {
                if level < Level::Weak && !self.blank {
                    return Ok(None);
                }
                match self.json_head(at) {
                    Err(Stop::No) => {}
                    other => return other,
                }
                if byte == b'{' && level == Level::Strong {
                    return optional(self.arrow_head(at)).map(one);
                }
                Ok(None)
            }
            _ => self.bare_head(at, level).map(one),
        }
    }

    /// `<NAME …>args</NAME>`, `<tag … name="NAME">args</tag>`, `<tag=NAME>args</tag>`.
    fn tag_head(&self, at: usize, level: Level) -> Reading<Option<(ParsedCall, usize)>> {
        if self.special_token(at)?.is_some() {
            return Ok(None);
        }
        let Some(tag) = self.tag(at)? else { return Ok(None) };
        if tag.closing {
            return Ok(None);
        }
        // The tool: the tag's own name, or its naming attribute's value.
        let mut tool = self.tools.named(&tag.name);
        let mut naming = None;
        if tool.is_none() {
            for (index, (key, value)) in tag.attributes.iter().enumerate() {
                let names = key.is_empty() || NAME_ATTRIBUTES.iter().any(|name| spells(key, name));
                if let Some(found) = self.tools.named(value).filter(|_| names) {
                    tool = Some(found);
                    naming = Some(index);
                    break;
                }
            }
        }
        let Some(tool) = tool else { return Ok(None) };
        // An HTML element (`<select name="…">`) is a document's, whatever its name says.
        if naming.is_some() && is_html(&tag.name) {
            return Ok(None);
        }
        let others = tag.attributes.iter().enumerate().filter(|&(index, _)| Some(index) != naming);
        if !others.into_iter().all(|(_, (key, _))| CALL_ATTRIBUTES.iter().any(|name| spells(key, name))) {
            return Ok(None);
        }
        self.named.set(true);
        let empty = || ParsedCall { tool, input: Ok(Value::Object(Map::new())) };
        if tag.self_closing {
            return Ok((level == Level::Strong).then(|| (empty(), tag.end)));
        }
        let mut close = vec![u16::from(b'<'), u16::from(b'/')];
        close.extend_from_slice(&tag.name);
        close.push(u16::from(b'>'));
        let body = self.skip_space(tag.end)?;
        if self.units(body, &close)? {
            return Ok((level == Level::Strong).then(|| (empty(), body + close.len())));
        }
        let (input, after) = match self.byte(body)? {
            Some(b'{') => self.json_arguments(body)?,
            Some(b'<') => match self.key_values(body, tool)? {
                Some((object, end)) => (Ok(Value::Object(object)), end),
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        let end = self.skip_space(after)?;
        if !self.units(end, &close)? {
            return Ok(None);
        }
        Ok(Some((ParsedCall { tool, input }, end + close.len())))
    }

    /// Key/value tags from `at`: `<key>v</key>`, `<parameter name="key">v</parameter>`
    /// (with `string="true"`: `v` is a string whatever it looks like),
    /// `<parameter=key>v</parameter>`, `<arg_key>k</arg_key><arg_value>v</arg_value>`.
    /// Stops after the last pair, before whatever is not one; `None` if
    /// there is none.
    fn key_values(&self, at: usize, tool: usize) -> Reading<Option<(Map<String, Value>, usize)>> {
        let mut object = Map::new();
        let mut end = at;
        let done = |object: Map<String, Value>, end| Ok((!object.is_empty()).then_some((object, end)));
        loop {
            let at = match self.skip_space(end) {
                Err(Stop::No) => return done(object, end),
                other => other?,
            };
            if self.literal(at, "</")? {
                return done(object, end);
            }
            let tag = match optional(self.tag(at))? {
                Some(tag) if !tag.closing && !tag.self_closing => tag,
                _ => return done(object, end),
            };
            let mut named = None;
            let mut string = false;
            for (key, value) in &tag.attributes {
                if named.is_none() && (key.is_empty() || spells(key, "name")) {
                    named = Some(String::from_utf16_lossy(value));
                } else if spells(key, "string") {
                    string = spells(value, "true");
                } else if !spells(key, "type") {
                    return Ok(None);
                }
            }
            let Some((content, after)) = self.element_content(&tag)? else { return Ok(None) };
            let name = String::from_utf16_lossy(&tag.name);
            let (key, value, after) = match named {
                Some(key) => (key, content, after),
                None if name.ends_with("key") => {
                    // `<arg_key>k</arg_key>` then a value element.
                    let key = String::from_utf16_lossy(&content).trim().to_owned();
                    let next = self.skip_space(after)?;
                    let Some(value_tag) = self.tag(next)? else { return Ok(None) };
                    if value_tag.closing || value_tag.self_closing || !value_tag.attributes.is_empty() {
                        return Ok(None);
                    }
                    let Some((value, after)) = self.element_content(&value_tag)? else { return Ok(None) };
                    (key, value, after)
                }
                // A tool's definition, not a call.
                None if name == "description" => return Ok(None),
                None => (name, content, after),
            };
            if key.is_empty() || !self.tools.accepts_key(tool, &key) {
                return Ok(None);
            }
            object.insert(key, if string { Value::String(trimmed(&value)) } else { scalar(&value) });
            end = after;
        }
    }

    /// The text of an element whose opening tag is `tag`, up to its closing
    /// tag (the first one), and where the element ends.
    fn element_content(&self, tag: &Tag) -> Reading<Option<(Vec<u16>, usize)>> {
        let mut close = vec![u16::from(b'<'), u16::from(b'/')];
        close.extend_from_slice(&tag.name);
        close.push(u16::from(b'>'));
        let mut i = tag.end;
        loop {
            if self.units(i, &close)? {
                return Ok(Some((self.text[tag.end..i].to_vec(), i + close.len())));
            }
            self.unit(i)?;
            i += 1;
        }
    }

    /// A JSON object or array that is a call (or calls) to offered tools.
    fn json_head(&self, at: usize) -> Reading<Option<(Vec<ParsedCall>, usize)>> {
        let end = match self.call_shaped_json(at) {
            Ok(end) => end,
            Err(Stop::No) => return self.curly_head(at),
            Err(more) => return Err(more),
        };
        let (value, marked) = marked_json(&self.text[at..end]).ok_or(Stop::No)?;
        let mut calls = Vec::new();
        if !self.json_calls(&value, marked, &mut calls) || calls.is_empty() {
            return Err(Stop::No);
        }
        Ok(Some((calls, end)))
    }

    /// A JSON call written with typographic quotes (`{“name”: “…”, …}`).
    fn curly_head(&self, at: usize) -> Reading<Option<(Vec<ParsedCall>, usize)>> {
        if !self.is(at, b'{')? || self.unit(self.skip_space(at + 1)?)? != LEFT_QUOTE {
            return Err(Stop::No);
        }
        let end = self.balanced(at, false)?;
        let straight: Vec<u16> = self.text[at..end]
            .iter()
            .map(|&u| if u == LEFT_QUOTE || u == RIGHT_QUOTE { u16::from(b'"') } else { u })
            .collect();
        let (value, marked) = marked_json(&straight).ok_or(Stop::No)?;
        let mut calls = Vec::new();
        if !only_call_keys(&value, 0) || !self.json_calls(&value, marked, &mut calls) || calls.is_empty() {
            return Err(Stop::No);
        }
        Ok(Some((calls, end)))
    }

    /// `{tool => "NAME", args => {…}}` (MiniMax's bracketed calls), or the
    /// same with `:` or `=`: a loose object whose first key names the tool.
    fn arrow_head(&self, at: usize) -> Reading<Option<(ParsedCall, usize)>> {
        let key = self.skip_space(at + 1)?;
        let mut i = key;
        while i - key < MAX_WORD && self.byte(i)?.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_') {
            i += 1;
        }
        let word = String::from_utf16_lossy(&self.text[key..i]);
        if !["tool", "name", "function", "tool_name"].contains(&word.as_str()) {
            return Ok(None);
        }
        let Some(next) = self.arrow(i)? else { return Ok(None) };
        let quote_at = self.skip_space(next)?;
        let Some(q @ (b'"' | b'\'')) = self.byte(quote_at)? else { return Ok(None) };
        let Some((tool, name_end)) = self.name_at(quote_at + 1)? else { return Ok(None) };
        if !self.is(name_end, q)? {
            return Ok(None);
        }
        self.named.set(true);
        let end = self.balanced(at, true)?;
        // The arguments: the value of the next key, if it is a group.
        let mut input = Ok(Value::Object(Map::new()));
        let mut j = self.skip_space(name_end + 1)?;
        if self.is(j, b',')? {
            j = self.skip_space(j + 1)?;
            while j < end && self.byte(j)?.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_') {
                j += 1;
            }
            if let Some(value) = self.arrow(j)? {
                let value = self.skip_space(value)?;
                if value < end && matches!(self.byte(value)?, Some(b'{' | b'[')) {
                    let close = self.balanced(value, true)?.min(end);
                    let raw = &self.text[value..close];
                    input = lenient_json(raw).or_else(|| loose(raw)).ok_or_else(|| raw.to_vec());
                }
            }
        }
        Ok(Some((ParsedCall { tool, input }, end)))
    }

    /// `=>`, `:` or `=` at `at` (after blanks): where it ends.
    fn arrow(&self, at: usize) -> Reading<Option<usize>> {
        let at = self.skip_blank(at)?;
        if self.literal(at, "=>")? {
            return Ok(Some(at + 2));
        }
        Ok(matches!(self.byte(at)?, Some(b':' | b'=')).then_some(at + 1))
    }

    /// Where a JSON value that could be a call ends. Fails as soon as a key
    /// outside a call's vocabulary appears outside the arguments.
    fn call_shaped_json(&self, at: usize) -> Reading<usize> {
        // Containers open: whether each is inside arguments (free).
        let mut open: Vec<(u8, bool)> = Vec::new();
        let mut i = at;
        // Inside an object, whether the next string is a key.
        let mut expect_key = false;
        // The freedom of the value that comes after the key just read.
        let mut value_free = false;
        // The value after the key just read names the tool.
        let mut naming = false;
        loop {
            let unit = self.unit(i)?;
            let byte = ascii(unit).ok_or(Stop::No)?;
            match byte {
                b'{' | b'[' => {
                    let free = match open.last() {
                        None => false,
                        Some(&(b'{', free)) => free || value_free,
                        Some(&(_, free)) => free,
                    };
                    if !free && open.len() >= MAX_CALL_DEPTH {
                        return Err(Stop::No);
                    }
                    open.push((byte, free));
                    expect_key = byte == b'{';
                    i += 1;
                }
                b'}' | b']' => {
                    let Some((kind, _)) = open.pop() else { return Err(Stop::No) };
                    if (kind == b'{') != (byte == b'}') {
                        return Err(Stop::No);
                    }
                    i += 1;
                    if open.is_empty() {
                        return Ok(i);
                    }
                    expect_key = false;
                }
                b'"' => {
                    let end = self.json_string_end(i)?;
                    if expect_key {
                        let &(_, free) = open.last().ok_or(Stop::No)?;
                        if !free {
                            let key = String::from_utf16_lossy(&self.text[i + 1..end - 1]);
                            if ARGUMENT_KEYS.contains(&key.as_str()) {
                                value_free = true;
                            } else if CALL_KEYS.contains(&key.as_str()) {
                                value_free = false;
                                naming = NAME_KEYS.contains(&key.as_str());
                            } else {
                                return Err(Stop::No);
                            }
                        }
                        expect_key = false;
                    } else if naming {
                        // A call to an offered tool has begun.
                        if self.tools.json_named(&self.text[i..end]).is_some() {
                            self.named.set(true);
                        }
                        naming = false;
                    }
                    i = end;
                }
                b',' => {
                    expect_key = matches!(open.last(), Some(&(b'{', _)));
                    i += 1;
                }
                b':' => i += 1,
                _ if is_space(byte) => i += 1,
                b'-'
                | b'0'..=b'9'
                | b'.'
                | b'e'
                | b'E'
                | b'+'
                | b't'
                | b'r'
                | b'u'
                | b'f'
                | b'a'
                | b'l'
                | b's'
                | b'n'
                    if !open.is_empty() =>
                {
                    i += 1
                }
                _ => return Err(Stop::No),
            }
            if open.is_empty() {
                return Err(Stop::No);
            }
        }
    }

    /// Where the JSON string starting at `at` (its quote) ends.
    fn json_string_end(&self, at: usize) -> Reading<usize> {
        let mut i = at + 1;
        loop {
            let unit = self.unit(i)?;
            if unit == u16::from(b'\\') {
                self.unit(i + 1)?;
                i += 2;
                continue;
            }
            i += 1;
            if unit == u16::from(b'"') {
                return Ok(i);
            }
        }
    }

    /// The calls a JSON value makes, if it is nothing but calls. `value` as
    /// [`marked_json`] reads it: its names are compared unit for unit, and
    /// when it is `marked`, a lone surrogate in the arguments reads as
    /// U+FFFD.
    fn json_calls(&self, value: &Value, marked: bool, calls: &mut Vec<ParsedCall>) -> bool {
        match value {
            Value::Array(items) => {
                !items.is_empty() && items.iter().all(|item| self.json_calls(item, marked, calls))
            }
            Value::Object(fields) => {
                if let Some(Value::Array(list)) = fields.get("tool_calls") {
                    return fields.len() == 1
                        && !list.is_empty()
                        && list.iter().all(|item| self.json_calls(item, marked, calls));
                }
                if let Some(Value::Object(function)) = fields.get("function") {
                    return self.json_calls(&Value::Object(function.clone()), marked, calls);
                }
                let Some(tool) = NAME_KEYS.iter().find_map(|key| match fields.get(*key) {
                    Some(Value::String(name)) => self.tools.named(&unmarked(name)),
                    _ => None,
                }) else {
                    return false;
                };
                let input = ARGUMENT_KEYS.iter().find_map(|key| fields.get(*key)).cloned();
                // Arguments that are a JSON Schema (`type` and `properties`):
                // a tool's definition, not a call.
                if let Some(Value::Object(schema)) = &input {
                    if schema.contains_key("type") && schema.contains_key("properties") {
                        return false;
                    }
                }
                let input = match input {
                    None => Value::Object(Map::new()),
                    // OpenAI writes the arguments as a JSON string.
                    Some(Value::String(text)) => match serde_json::from_str::<Value>(&text) {
                        Ok(parsed @ Value::Object(_)) => parsed,
                        _ => {
                            calls.push(ParsedCall { tool, input: Err(unmarked(&text)) });
                            return true;
                        }
                    },
                    Some(other) => other,
                };
                let input = if marked { lossy(input) } else { input };
                calls.push(ParsedCall { tool, input: Ok(input) });
                true
            }
            _ => false,
        }
    }

    /// A JSON object of arguments at `at` (or, failing JSON, a balanced
    /// group: read as a loose object, else kept raw): the input and where
    /// it ends.
    fn json_arguments(&self, at: usize) -> Reading<(Result<Value, Vec<u16>>, usize)> {
        let mut scan = JsonScan::new();
        let mut i = at;
        loop {
            match scan.step(self.unit(i)?) {
                Step::More => i += 1,
                Step::Done => {
                    let raw = &self.text[at..=i];
                    return Ok((lenient_json(raw).ok_or_else(|| raw.to_vec()), i + 1));
                }
                Step::Invalid => break,
            }
        }
        // Not JSON: a balanced `{…}` (Gemma's `{city:<|"|>Paris<|"|>}`).
        let end = self.balanced(at, false)?;
        let raw = &self.text[at..end];
        Ok((loose(raw).ok_or_else(|| raw.to_vec()), end))
    }

    /// Where the group opened at `at` (`(`, `[` or `{`) closes; strings in
    /// quotes are skipped when `quotes`.
    fn balanced(&self, at: usize, quotes: bool) -> Reading<usize> {
        let mut depth = 0usize;
        let mut i = at;
        loop {
            let byte = self.byte(i)?;
            match byte {
                Some(b'(' | b'[' | b'{') => depth += 1,
                Some(b')' | b']' | b'}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Ok(i + 1);
                    }
                }
                Some(q @ (b'"' | b'\'')) if quotes => {
                    i += 1;
                    loop {
                        let unit = self.unit(i)?;
                        if unit == u16::from(b'\\') {
                            i += 2;
                            continue;
                        }
                        if unit == u16::from(q) {
                            break;
                        }
                        i += 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// A tool's name outside any tag or JSON: `functions.NAME`,
    /// `to=functions.NAME`, `default_api:NAME`, `NAME[ARGS]…`, or `NAME`
    /// with its arguments in any shape, as far as the wrapping allows.
    fn bare_head(&self, at: usize, level: Level) -> Reading<Option<(ParsedCall, usize)>> {
        if at > 0 && self.text.get(at - 1).is_some_and(|&u| is_word(u)) {
            return Ok(None);
        }
        let mut name_at = at;
        let mut distinctive = false;
        for prefix in DISTINCTIVE.into_iter().chain(["to="]) {
            if self.literal(at, prefix)? {
                name_at = at + prefix.encode_utf16().count();
                distinctive = prefix != "to=" || level > Level::None;
                break;
            }
        }
        let Some((tool, name_end)) = self.name_at(name_at)? else { return Ok(None) };
        match self.peek(name_end)? {
            Some(unit) if is_word(unit) => return Ok(None),
            _ => {}
        }
        let no_arguments_allowed = level == Level::Strong && !distinctive;
        if distinctive || no_arguments_allowed {
            self.named.set(true);
        }
        if self.literal(name_end, "[ARGS]")? {
            self.named.set(true);
            let args = self.skip_space(name_end + 6)?;
            if !self.is(args, b'{')? {
                return Ok(None);
            }
            let (input, end) = self.json_arguments(args)?;
            return Ok(Some((ParsedCall { tool, input }, end)));
        }
        // `NAME(…)` or `NAME.call(…)`
        let paren = if self.literal(name_end, ".call(")? { name_end + 5 } else { name_end };
        if self.is_there(paren, b'(')? {
            if !distinctive && level < Level::Bracket {
                return Ok(None);
            }
            self.named.set(true);
            let end = self.balanced(paren, true)?;
            let raw = &self.text[paren + 1..end - 1];
            return Ok(match pythonic(raw) {
                Some(input) => Some((ParsedCall { tool, input: Ok(input) }, end)),
                None if distinctive || level == Level::Strong => {
                    Some((ParsedCall { tool, input: Err(raw.to_vec()) }, end))
                }
                None => None,
            });
        }
        // A gap of space, special tokens, markers, an index and short words,
        // then JSON arguments (or key/value tags, or nothing before a closer).
        let no_arguments = Some((ParsedCall { tool, input: Ok(Value::Object(Map::new())) }, name_end));
        let mut i = name_end;
        let mut fence = false;
        let mut token = false;
        let mut words = 0;
        let mut junk = 0;
        while i - name_end <= MAX_OPENERS {
            let only_space = self.text[name_end..i].iter().all(|&u| ascii(u).is_some_and(is_space));
            let unit = match self.unit(i) {
                Ok(unit) => unit,
                // The text ends right after the name: a call with no arguments.
                Err(Stop::No) if no_arguments_allowed && only_space => return Ok(no_arguments),
                Err(stop) => return Err(stop),
            };
            match ascii(unit) {
                Some(b'{') => {
                    if !(distinctive || token || level >= Level::Weak) {
                        return Ok(None);
                    }
                    self.named.set(true);
                    let (input, mut end) = self.json_arguments(i)?;
                    if fence {
                        let close = self.skip_space(end)?;
                        if self.literal(close, "```")? {
                            end = close + 3;
                        }
                    }
                    return Ok(Some((ParsedCall { tool, input }, end)));
                }
                Some(b) if is_space(b) => i += 1,
                Some(b':') => {
                    i += 1;
                    while self.byte(i)?.is_some_and(|b| b.is_ascii_digit()) {
                        i += 1;
                    }
                }
                Some(b'`') if self.literal(i, "```")? => {
                    let mut j = i + 3;
                    while self.byte(j)?.is_some_and(|b| b.is_ascii_alphanumeric()) {
                        j += 1;
                    }
                    fence = true;
                    i = j;
                }
                Some(b'[') => {
                    let mut j = i + 1;
                    while self.byte(j)?.is_some_and(|b| b.is_ascii_uppercase() || b == b'_') {
                        j += 1;
                    }
                    if j == i + 1 || !self.is(j, b']')? {
                        return Ok(None);
                    }
                    i = j + 1;
                }
                Some(b'<') => {
                    if let Some(end) = self.special_token(i)? {
                        token = true;
                        i = end;
                        continue;
                    }
                    if self.literal(i, "</")? {
                        // A closer: a call with no arguments, if wrapped so.
                        return Ok(if no_arguments_allowed && only_space { no_arguments } else { None });
                    }
                    if level < Level::Weak {
                        return Ok(None);
                    }
                    self.named.set(true);
                    return Ok(self
                        .key_values(i, tool)?
                        .map(|(object, end)| (ParsedCall { tool, input: Ok(Value::Object(object)) }, end)));
                }
                Some(b) if b.is_ascii_lowercase() => {
                    let mut j = i;
                    while self.byte(j)?.is_some_and(|b| b.is_ascii_lowercase()) && j - i < 16 {
                        j += 1;
                    }
                    words += 1;
                    if words > MAX_GAP_WORDS
                        || !self.byte(j)?.is_some_and(|b| is_space(b) || b == b'<' || b == b'{')
                    {
                        return Ok(None);
                    }
                    i = j;
                }
                // Stray tokens of a garbled stream after `to=functions.NAME`.
                None if distinctive && junk < MAX_GAP_JUNK => {
                    junk += 1;
                    i += 1;
                }
                _ => {
                    // Something else: a call with no arguments only right
                    // before a strong wrapper's end.
                    if no_arguments_allowed && i == name_end && matches!(ascii(unit), Some(b']' | b')')) {
                        return Ok(no_arguments);
                    }
                    return Ok(None);
                }
            }
        }
        Ok(None)
    }
}

/// A read that may fail: the end of a complete text, or a shape that is not
/// there, is `None`.
fn optional<T>(reading: Reading<Option<T>>) -> Reading<Option<T>> {
    match reading {
        Err(Stop::No) => Ok(None),
        other => other,
    }
}

/// The keys that name a call's tool.
const NAME_KEYS: [&str; 6] = ["name", "tool", "tool_name", "function", "recipient_name", "toolName"];
/// The keys that hold a call's arguments (anything goes inside them).
const ARGUMENT_KEYS: [&str; 8] =
    ["arguments", "parameters", "args", "input", "params", "tool_input", "tool_args", "kwargs"];
/// Every other key a call object may have.
const CALL_KEYS: [&str; 13] = [
    "name",
    "tool",
    "tool_name",
    "function",
    "recipient_name",
    "toolName",
    "id",
    "type",
    "call_id",
    "tool_call_id",
    "index",
    "tool_calls",
    "toolCallId",
];
/// The attributes that name a tag head's tool.
const NAME_ATTRIBUTES: [&str; 5] = ["name", "tool", "tool_name", "function", "toolName"];
/// Every other attribute a tag head may have.
const CALL_ATTRIBUTES: [&str; 5] = ["id", "type", "index", "call_id", "tool_call_id"];

/// Whether a parsed JSON value has only a call's keys outside its arguments.
fn only_call_keys(value: &Value, depth: usize) -> bool {
    if depth > MAX_CALL_DEPTH {
        return false;
    }
    match value {
        Value::Array(items) => items.iter().all(|item| only_call_keys(item, depth + 1)),
        Value::Object(fields) => fields.iter().all(|(key, value)| {
            ARGUMENT_KEYS.contains(&key.as_str())
                || (CALL_KEYS.contains(&key.as_str())
                    && (!matches!(value, Value::Object(_) | Value::Array(_))
                        || only_call_keys(value, depth + 1)))
        }),
        _ => true,
    }
}

/// A tag as read.
#[derive(Debug)]
struct Tag {
    name: Vec<u16>,
    attributes: Vec<(Vec<u16>, Vec<u16>)>,
    end: usize,
    closing: bool,
    self_closing: bool,
}

const FULL_BAR: u16 = 0xFF5C;
const LEFT_QUOTE: u16 = 0x201C;
const RIGHT_QUOTE: u16 = 0x201D;

fn ascii(unit: u16) -> Option<u8> {
    u8::try_from(unit).ok().filter(u8::is_ascii)
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// What a tag's name is made of: ASCII letters, digits, `_`, `-`, `:`
/// and `.`; and, in an offered tool's name, any unit beyond ASCII.
fn is_tag_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b':' | b'.')
}

fn is_tag_name_unit(unit: u16) -> bool {
    ascii(unit).is_none_or(is_tag_name_byte)
}

fn is_word(unit: u16) -> bool {
    ascii(unit).is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn spells(units: &[u16], text: &str) -> bool {
    text.encode_utf16().eq(units.iter().copied())
}

/// Whether a tag's, marker's or namespace's name says it wraps tool calls.
fn is_toolish(name: &[u16]) -> bool {
    let name = String::from_utf16_lossy(name).to_ascii_lowercase();
    name.contains("tool") || name.contains("call")
}

/// The HTML elements: a tag named so is a document's, never a wrapper.
const HTML: &[&str] = &[
    "a",
    "abbr",
    "address",
    "area",
    "article",
    "aside",
    "audio",
    "b",
    "base",
    "bdi",
    "bdo",
    "blockquote",
    "body",
    "br",
    "button",
    "canvas",
    "caption",
    "cite",
    "code",
    "col",
    "colgroup",
    "data",
    "datalist",
    "dd",
    "del",
    "details",
    "dfn",
    "dialog",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "i",
    "iframe",
    "img",
    "input",
    "ins",
    "kbd",
    "label",
    "legend",
    "li",
    "link",
    "main",
    "map",
    "mark",
    "menu",
    "meta",
    "meter",
    "nav",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "output",
    "p",
    "param",
    "picture",
    "pre",
    "progress",
    "q",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "script",
    "search",
    "section",
    "select",
    "slot",
    "small",
    "source",
    "span",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "svg",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "title",
    "tr",
    "track",
    "u",
    "ul",
    "var",
    "video",
    "wbr",
];

fn is_html(name: &[u16]) -> bool {
    // A `｜NS｜` namespace is no part of the element's name.
    let local = match name.first() {
        Some(&bar) if bar == u16::from(b'|') || bar == FULL_BAR => {
            match name[1..].iter().position(|&u| u == bar) {
                Some(at) => &name[at + 2..],
                None => name,
            }
        }
        _ => name,
    };
    let local = String::from_utf16_lossy(local).to_ascii_lowercase();
    HTML.binary_search(&local.as_str()).is_ok()
}

/// A tag's text content, with one line break trimmed at each end.
fn trimmed(units: &[u16]) -> String {
    let text = String::from_utf16_lossy(units);
    let text = text.strip_prefix('\n').unwrap_or(&text);
    let text = text.strip_suffix('\n').unwrap_or(text);
    text.to_owned()
}

/// A tag's text content as a value: JSON when it is JSON (a number, an
/// object), else the text, with one line break trimmed at each end.
fn scalar(units: &[u16]) -> Value {
    let text = trimmed(units);
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(
            value @ (Value::Number(_) | Value::Bool(_) | Value::Null | Value::Object(_) | Value::Array(_)),
        ) => value,
        _ => Value::String(text),
    }
}

/// `text` parsed as JSON, a lone surrogate in it read as U+FFFD (see
/// [`marked_json`]).
fn lenient_json(text: &[u16]) -> Option<Value> {
    marked_json(text).map(|(value, marked)| if marked { lossy(value) } else { value })
}

/// `value` with its marked strings (see [`readable`]) read lossily: a lone
/// surrogate as U+FFFD.
fn lossy(value: Value) -> Value {
    let lossy_string = |text: String| String::from_utf16_lossy(&unmarked(&text));
    match value {
        Value::String(text) => Value::String(lossy_string(text)),
        Value::Array(items) => Value::Array(items.into_iter().map(lossy).collect()),
        Value::Object(fields) => {
            Value::Object(fields.into_iter().map(|(key, item)| (lossy_string(key), lossy(item))).collect())
        }
        other => other,
    }
}

/// `text` parsed as JSON, with its lone surrogates (raw or escaped) kept
/// marked in its strings (see [`readable`]), and whether any is; failing
/// that, parsed again with the raw line breaks and tabs that models write
/// inside strings escaped.
fn marked_json(text: &[u16]) -> Option<(Value, bool)> {
    let (text, marked) = readable(text);
    if let Ok(value) = serde_json::from_str::<Value>(&text) {
        return Some((value, marked));
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    let (mut in_string, mut backslash) = (false, false);
    for c in text.chars() {
        match (in_string, backslash, c) {
            (true, false, '\n') => escaped.push_str("\\n"),
            (true, false, '\r') => escaped.push_str("\\r"),
            (true, false, '\t') => escaped.push_str("\\t"),
            _ => escaped.push(c),
        }
        match (in_string, backslash, c) {
            (true, false, '\\') => backslash = true,
            (true, true, _) => backslash = false,
            (_, false, '"') => in_string = !in_string,
            _ => {}
        }
    }
    serde_json::from_str(&escaped).ok().map(|value| (value, marked))
}

/// Pythonic keyword arguments (`city="Paris", days=3`, or `city: "Paris"`)
/// as a JSON object.
fn pythonic(units: &[u16]) -> Option<Value> {
    let text = String::from_utf16_lossy(units);
    let mut reader = Py { chars: text.chars().collect(), at: 0 };
    let mut object = Map::new();
    reader.space();
    if reader.done() {
        return Some(Value::Object(object));
    }
    loop {
        reader.space();
        let key = reader.identifier()?;
        reader.space();
        if !matches!(reader.next()?, '=' | ':') {
            return None;
        }
        let value = reader.value(0)?;
        object.insert(key, value);
        reader.space();
        if reader.done() {
            return Some(Value::Object(object));
        }
        if reader.next()? != ',' {
            return None;
        }
        reader.space();
        if reader.done() {
            return Some(Value::Object(object));
        }
    }
}

/// A loose object (`{city:<|"|>Paris<|"|>, days:3}`, `{command:"ls"}`): keys
/// bare or quoted, strings in quotes or between `<|"|>` or `<escape>`.
fn loose(units: &[u16]) -> Option<Value> {
    let text = String::from_utf16_lossy(units);
    let mut reader = Py { chars: text.chars().collect(), at: 0 };
    let value = reader.value(0)?;
    reader.space();
    (reader.done() && value.is_object()).then_some(value)
}

struct Py {
    chars: Vec<char>,
    at: usize,
}

impl Py {
    fn done(&self) -> bool {
        self.at >= self.chars.len()
    }
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }
    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }
    fn starts_with(&self, text: &str) -> bool {
        let mut rest = self.chars.get(self.at..).unwrap_or(&[]).iter();
        text.chars().all(|c| rest.next() == Some(&c))
    }
    fn space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }
    fn identifier(&mut self) -> Option<String> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.at += 1;
        }
        (self.at > start).then(|| self.chars[start..self.at].iter().collect())
    }
    /// A string between two `delimiter`s, the first at the reader.
    fn delimited(&mut self, delimiter: &str) -> Option<Value> {
        self.at += delimiter.chars().count();
        let start = self.at;
        while !self.starts_with(delimiter) {
            self.next()?;
        }
        let text: String = self.chars[start..self.at].iter().collect();
        self.at += delimiter.chars().count();
        Some(Value::String(text))
    }
    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > 32 {
            return None;
        }
        self.space();
        match self.peek()? {
            q @ ('"' | '\'') => {
                self.at += 1;
                let mut out = String::new();
                loop {
                    match self.next()? {
                        '\\' => match self.next()? {
                            'n' => out.push('\n'),
                            't' => out.push('\t'),
                            c => out.push(c),
                        },
                        c if c == q => return Some(Value::String(out)),
                        c => out.push(c),
                    }
                }
            }
            '<' if self.starts_with("<|\"|>") => self.delimited("<|\"|>"),
            '<' if self.starts_with("<escape>") => self.delimited("<escape>"),
            open @ ('[' | '(') => {
                self.at += 1;
                let close = if open == '[' { ']' } else { ')' };
                let mut items = Vec::new();
                loop {
                    self.space();
                    if self.peek()? == close {
                        self.at += 1;
                        return Some(Value::Array(items));
                    }
                    items.push(self.value(depth + 1)?);
                    self.space();
                    match self.next()? {
                        ',' => {}
                        c if c == close => return Some(Value::Array(items)),
                        _ => return None,
                    }
                }
            }
            '{' => {
                self.at += 1;
                let mut object = Map::new();
                loop {
                    self.space();
                    if self.peek()? == '}' {
                        self.at += 1;
                        return Some(Value::Object(object));
                    }
                    let key = match self.peek()? {
                        '"' | '\'' => match self.value(depth + 1)? {
                            Value::String(key) => key,
                            _ => return None,
                        },
                        _ => self.identifier()?,
                    };
                    self.space();
                    if !matches!(self.next()?, ':' | '=') {
                        return None;
                    }
                    object.insert(key, self.value(depth + 1)?);
                    self.space();
                    match self.next()? {
                        ',' => {}
                        '}' => return Some(Value::Object(object)),
                        _ => return None,
                    }
                }
            }
            _ => {
                let start = self.at;
                while self.peek().is_some_and(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '+' | '_')) {
                    self.at += 1;
                }
                let word: String = self.chars[start..self.at].iter().collect();
                match word.as_str() {
                    "True" | "true" => Some(Value::Bool(true)),
                    "False" | "false" => Some(Value::Bool(false)),
                    "None" | "null" => Some(Value::Null),
                    _ => serde_json::from_str::<serde_json::Number>(&word).ok().map(Value::Number),
                }
            }
        }
    }
}

/// A fenced code block the stage is inside: nothing in it is read.
#[derive(Clone, Copy, Debug)]
struct Code {
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
    closing: bool,
}

/// What one unit did to a code block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CodeStep {
    /// The unit belongs to the block.
    Inside,
    /// The unit closed the block.
    Closed,
    /// Fewer than three backticks: no block; the unit is read afresh.
    NoFence,
}

impl Code {
    fn new() -> Self {
        Code { ticks: 0, counting: true, opening: true, line_blank: false, run: 0, closing: false }
    }

    fn step(&mut self, unit: u16) -> CodeStep {
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
struct Line {
    /// Only spaces and tabs so far (or a leak just ended).
    blank: bool,
    /// An odd number of backticks so far: inside an inline code span.
    quoted: bool,
}

impl Line {
    /// At the start of a line, or right after a leak.
    const FRESH: Line = Line { blank: true, quoted: false };

    fn next(self, unit: u16) -> Line {
        if unit == u16::from(b'\n') {
            return Line::FRESH;
        }
        Line {
            blank: self.blank && (unit == u16::from(b' ') || unit == u16::from(b'\t')),
            quoted: self.quoted != (unit == u16::from(b'`')),
        }
    }
}

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
    /// A buffer reused by every read: the held text narrowed to a byte a
    /// unit, for the search of leads (see [`narrow_into`]).
    narrow: Vec<u8>,
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
            narrow: Vec::new(),
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
        if self.held.is_empty() {
            // Nothing held: the chunk is read where it is, and only what
            // stays undecided is copied.
            let keep_from = self.run(tools, options, log, out, chunk, false);
            self.held.extend_from_slice(&chunk[keep_from..]);
        } else {
            self.held.extend_from_slice(chunk);
            // A candidate that ran out is read again once the text has grown
            // by half: the re-reading sums to a constant factor of the text.
            if self.waiting == 0 || self.held.len() >= self.waiting + (self.waiting / 2).max(1) {
                self.run_held(tools, options, log, out, false);
            }
        }
        if let Some(most) = options.max_held {
            if self.waiting > 0 && self.held.len() > most.get() {
                self.settle(options, log, StripReason::MaxHeld, out);
            }
        }
    }

    /// Ends the stream, and frees what the stage held.
    pub(crate) fn flush(&mut self, tools: &Tools, options: Options, log: &mut StripLog, out: &mut Vec<u16>) {
        self.run_held(tools, options, log, out, true);
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
    fn run_held(
        &mut self,
        tools: &Tools,
        options: Options,
        log: &mut StripLog,
        out: &mut Vec<u16>,
        complete: bool,
    ) {
        let mut held = std::mem::take(&mut self.held);
        let keep_from = self.run(tools, options, log, out, &held, complete);
        held.drain(..keep_from);
        self.held = held;
    }

    /// Reads `text` (what the stage holds, then the new text) as far as it
    /// decides, and returns where the undecided rest begins; `complete`:
    /// nothing more will come.
    fn run(
        &mut self,
        tools: &Tools,
        options: Options,
        log: &mut StripLog,
        out: &mut Vec<u16>,
        text: &[u16],
        complete: bool,
    ) -> usize {
        self.waiting = 0;
        let mut emitted = 0;
        let mut at = 0;
        let mut keep_from = None;
        let mut line = self.line;
        let mut credit = self.credit;
        let far = Cell::new(0);
        let named = Cell::new(false);
        let cut = complete && options.open_span_at_end == OpenSpanPolicy::Drop;
        // Where a held tail may begin, with the line and credit there.
        let tail_from = text.len().saturating_sub(tools.longest.max(16));
        let mut marks = std::mem::take(&mut self.marks);
        marks.clear();
        // The next offered name or distinctive prefix (see `plain_run`),
        // searched in the text narrowed to a byte a unit.
        let mut narrow = std::mem::take(&mut self.narrow);
        narrow_into(text, &mut narrow);
        count_work!(self.work, text.len());
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
                let (plain, crossed) = plain_run(tools, text, &narrow, at, tail_from, before, &mut ahead);
                count_work!(self.work, plain);
                if plain > 0 {
                    credit = credit.saturating_add(CREDIT_PER_UNIT.saturating_mul(plain as i64));
                    at += plain;
                    if crossed {
                        line = Line { blank: false, quoted: false };
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
                let reader =
                    Reader { text, tools, complete, blank: line.blank, far: &far, cut, named: &named };
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
                        if cut && reader.cut_off_call(at) {
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
        out.extend_from_slice(&text[emitted..keep_from]);
        if keep_from > 0 {
            self.before = Some(text[keep_from - 1]);
        }
        self.line = line;
        self.credit = credit;
        self.marks = marks;
        self.narrow = narrow;
        keep_from
    }
}

/// Whether a leak could begin at `at`.
fn may_begin(tools: &Tools, text: &[u16], at: usize, before: Option<u16>, blank: bool) -> bool {
    match ascii(text[at]) {
        Some(b'<') => angle_may_open(tools, text, at),
        Some(b'[' | b'{') => true,
        Some(b'`') => blank,
        _ if before.is_some_and(is_word) => false,
        Some(b) if b.is_ascii_alphabetic() && blank => line_may_lead(tools, &text[at..]),
        _ => word_may_lead(tools, &text[at..]),
    }
}

/// Whether the `<` at `at` may open what the reader takes there: a special
/// token (`<|`, `<｜`, `<word|>`) or a tag (`<name`, `</`, `<NAME` for an
/// offered name beyond ASCII); not the `<` of `x < y`. Yes when the text
/// ends after it.
fn angle_may_open(tools: &Tools, text: &[u16], at: usize) -> bool {
    text.get(at + 1).is_none_or(|&next| {
        is_word(next)
            || next == FULL_BAR
            || matches!(ascii(next), Some(b'/' | b'|'))
            || (ascii(next).is_none() && tools.name_may_begin(&text[at + 1..]))
    })
}

/// Whether a leak may begin at a letter that starts a line: what
/// [`Reader::lead`] reads there (a channel word before ` to=functions.`
/// or glued by `:` to a distinctive head, or a lone lowercase word of 2 to
/// 16 letters on its line with a tag on the next), or what may begin
/// mid-line (see [`word_may_lead`]). Yes when the text ends before that is
/// decided.
fn line_may_lead(tools: &Tools, rest: &[u16]) -> bool {
    word_may_lead(tools, rest) || first_word_may_lead(rest, true)
}

/// What [`line_may_lead`] asks of a line's first word besides whether an
/// offered name or a distinctive prefix begins it: whether it is too long
/// to tell, reaches the text's end, is glued to a distinctive head
/// (`heads`: the caller may know that no lead is there), or stands alone
/// on its line.
fn first_word_may_lead(rest: &[u16], heads: bool) -> bool {
    let word = rest
        .iter()
        .take(MAX_WORD)
        .take_while(|&&unit| ascii(unit).is_some_and(|b| b.is_ascii_alphabetic()))
        .count();
    let after = &rest[word..];
    if word == MAX_WORD || after.is_empty() {
        return true;
    }
    if heads
        && (agrees(" to=functions.", after)
            || (after[0] == u16::from(b':') && DISTINCTIVE.iter().any(|prefix| agrees(prefix, &after[1..]))))
    {
        return true;
    }
    let lowercase = rest[..word].iter().all(|&unit| ascii(unit).is_some_and(|b| b.is_ascii_lowercase()));
    if !(2..=16).contains(&word) || !lowercase {
        return false;
    }
    // A lone word: blanks, then the line's end (or the text's).
    let line_end = after.iter().position(|&unit| !matches!(ascii(unit), Some(b' ' | b'\t' | b'\r')));
    line_end.is_none_or(|at| after[at] == u16::from(b'\n'))
}

/// Whether a leak may begin at a word's start that is not a line's: only a
/// head that needs no wrapper can (`functions.NAME`, `to=functions.NAME`,
/// `default_api:NAME`, or an offered name that `[ARGS]` or a special token
/// follows), so `rest` must begin one of those prefixes or an offered name
/// (or end inside one). Any other word costs a table look-up.
fn word_may_lead(tools: &Tools, rest: &[u16]) -> bool {
    // Every distinctive prefix begins with `t`, `f` or `d`.
    if matches!(rest.first().and_then(|&unit| ascii(unit)), Some(b't' | b'f' | b'd'))
        && DISTINCTIVE.iter().chain(&["to="]).any(|prefix| agrees(prefix, rest))
    {
        return true;
    }
    tools.name_may_begin(rest)
}

/// Whether `literal` and `rest` agree as far as both go (`rest` may end
/// inside it).
fn agrees(literal: &str, rest: &[u16]) -> bool {
    literal.bytes().map(u16::from).zip(rest).all(|(a, &b)| a == b)
}

/// The distinctive prefixes' first word: what [`Tools::leads`]
/// finds besides the names.
const LEAD_PREFIXES: [&str; 3] = ["functions.", "to=", "default_api"];

/// The length of the longest of [`LEAD_PREFIXES`].
const LONGEST_PREFIX: usize = "default_api".len();

/// Where, from `from`, the next offered name or distinctive prefix begins
/// (as [`Tools::leads`] finds them in `narrow`, the text narrowed by
/// [`narrow_into`]), or `narrow.len()`. A match is only a place to look: the
/// caller checks the units themselves.
fn next_lead(tools: &Tools, narrow: &[u8], from: usize) -> usize {
    tools.leads.find(narrow, from).unwrap_or(narrow.len())
}

/// `text` as one byte per unit (see [`narrowed`]). Narrowed, the names and
/// prefixes are searched as plain byte strings; a name with units outside
/// ASCII matches any unit that narrows as its own does, and is checked.
fn narrow_into(text: &[u16], narrow: &mut Vec<u8>) {
    narrow.clear();
    narrow.extend(text.iter().copied().map(narrowed));
}

/// A unit as one byte: ASCII as itself, anything else as 0x80 and its low
/// seven bits, so that in a text in another script a name in that script
/// is a lead at one place in about 128 to the power of its length, not at
/// every place.
fn narrowed(unit: u16) -> u8 {
    if unit < 0x80 {
        unit as u8
    } else {
        0x80 | (unit & 0x7F) as u8
    }
}

/// Where, from `from`, the next unit is that stops a plain run (see
/// [`plain_run`]): `<`, `[`, `{`, a backtick or a line break; or `end`.
fn next_stop(text: &[u16], from: usize, end: usize) -> usize {
    const STOPS: [u16; 5] = [b'<' as u16, b'[' as u16, b'{' as u16, b'`' as u16, b'\n' as u16];
    find_any(&text[from..end], STOPS).map_or(end, |at| from + at)
}

/// How far from `at` the text is plain, for a line that is not blank and
/// holds no open code span: no unit that may begin a leak (see
/// [`may_begin`]), no backtick (which changes the line), no `{` or `[`
/// (which start a JSON scan); a `<` that opens nothing is passed. Stops at
/// `end`. A line break is passed when
/// the next line's start begins nothing either (its blanks, then a unit
/// that is no stop and cannot lead); then the second value is true, and
/// the line at the end is neither blank nor quoted.
fn plain_run(
    tools: &Tools,
    text: &[u16],
    narrow: &[u8],
    at: usize,
    end: usize,
    before: Option<u16>,
    ahead: &mut Ahead,
) -> (usize, bool) {
    let mut crossed = false;
    let mut from = at;
    loop {
        let stop = match ahead.stop {
            Some(stop) if stop >= from => stop,
            _ => *ahead.stop.insert(next_stop(text, from, end)),
        };
        loop {
            if ahead.lead < from {
                ahead.lead = next_lead(tools, narrow, from);
            }
            let candidate = ahead.lead;
            if candidate >= stop {
                break;
            }
            let unit_before = if candidate == 0 { before } else { Some(text[candidate - 1]) };
            if !unit_before.is_some_and(is_word) && word_may_lead(tools, &text[candidate..]) {
                return (candidate - at, crossed);
            }
            from = candidate + 1;
        }
        if stop >= end {
            return (stop - at, crossed);
        }
        // A `<` that opens nothing is prose (it leaves the line as it is).
        if text[stop] == u16::from(b'<') && !angle_may_open(tools, text, stop) {
            from = stop + 1;
            continue;
        }
        // The next line's start, read as the unit-by-unit path would read
        // it on a blank line.
        if text[stop] != u16::from(b'\n') {
            return (stop - at, crossed);
        }
        let mut first = stop + 1;
        while first < end && matches!(ascii(text[first]), Some(b' ' | b'\t')) {
            if word_may_lead(tools, &text[first..]) {
                return (stop - at, crossed);
            }
            first += 1;
        }
        let begins = match text.get(first).and_then(|&unit| ascii(unit)) {
            _ if first >= end => true,
            Some(b'<' | b'[' | b'{' | b'`' | b'\n') => true,
            Some(b) if b.is_ascii_alphabetic() => {
                // Where no lead begins at the word or right after it, with
                // room for the longest in the text, only the word itself
                // can say yes.
                if ahead.lead < first {
                    ahead.lead = next_lead(tools, narrow, first);
                }
                let reach = first + MAX_WORD + 1;
                if ahead.lead > reach && reach + tools.longest.max(LONGEST_PREFIX) <= text.len() {
                    first_word_may_lead(&text[first..], false)
                } else {
                    line_may_lead(tools, &text[first..])
                }
            }
            _ => word_may_lead(tools, &text[first..]),
        };
        if begins {
            return (stop - at, crossed);
        }
        crossed = true;
        from = first + 1;
    }
}

/// What [`plain_run`] found ahead of the reading in one read of a text:
/// the next lead and the next stop at or after some earlier place. Each is
/// searched again only once the reading has passed it, so each unit of the
/// text is searched about once, however often the reading stops.
#[derive(Default)]
struct Ahead {
    lead: usize,
    /// (`None` until the first search.)
    stop: Option<usize>,
}

/// Where the longest tail of `text[from..]` that could still begin a leak
/// starts (among the `marks`, the places read outside JSON and code): a
/// prefix of a tool's name, of a distinctive prefix, or of a fence.
fn partial_tail(tools: &Tools, text: &[u16], from: usize, marks: &[(usize, Line, i64)]) -> usize {
    // Whether `tail` is a strict prefix of `whole`.
    fn begins(whole: impl ExactSizeIterator<Item = u16>, tail: &[u16]) -> bool {
        whole.len() > tail.len() && whole.zip(tail).all(|(a, &b)| a == b)
    }
    for &(start, _, _) in marks {
        if start < from || (start > 0 && is_word(text[start - 1])) {
            continue;
        }
        let tail = &text[start..];
        let of_literal = DISTINCTIVE.iter().chain(&["```"]).any(|p| begins(p.bytes().map(u16::from), tail));
        let of_name = tools.list().iter().any(|tool| begins(tool.name.iter().copied(), tail));
        if of_literal || of_name {
            return start;
        }
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    fn run_with(tools: &[&str], text: &str, chunk: usize, options: Options) -> (String, Vec<String>) {
        let tools = Tools::new(tools.iter().map(|name| Tool::named(name)).collect()).unwrap();
        let mut stage = CallStage::default();
        let mut log = StripLog::default();
        let mut out = Vec::new();
        let all = units(text);
        for piece in all.chunks(chunk.max(1)) {
            stage.feed(&tools, options, &mut log, piece, &mut out);
        }
        stage.flush(&tools, options, &mut log, &mut out);
        let spans = log.spans().map(String::from_utf16_lossy).collect();
        (String::from_utf16_lossy(&out), spans)
    }

    fn run(tools: &[&str], text: &str, chunk: usize) -> (String, Vec<String>) {
        run_with(tools, text, chunk, Options::default())
    }

    fn drop_policy() -> Options {
        Options { open_span_at_end: OpenSpanPolicy::Drop, ..Options::default() }
    }

    #[test]
    fn strips_the_common_families_in_every_chunking() {
        let leaks = [
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
            "<function_calls><invoke name=\"get_weather\"><parameter name=\"city\">Paris</parameter></invoke></function_calls>",
            "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]",
            "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}",
            "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}<|eom_id|>",
            "<|tool_call_start|>[get_weather(city=\"Paris\")]<|tool_call_end|>",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>",
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
            "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>",
            "<get_weather>{\"city\": \"Paris\"}</get_weather>",
            // Families no preset knows.
            "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>",
            "<seed:tool_call>\n  <function name=\"get_weather\">\n    <parameter name=\"city\" string=\"true\">Paris</parameter>\n  </function>\n</seed:tool_call>",
            "<function name=\"get_weather\"><param name=\"city\">Paris</param></function>",
            "<longcat_tool_call>get_weather <longcat_arg_key>city</longcat_arg_key> <longcat_arg_value>Paris</longcat_arg_value> </longcat_tool_call>",
            "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}<tool_call|>",
            "<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>",
            "[TOOL_CALL]\n{tool => \"get_weather\", args => {\n  --city \"Paris\"\n}}\n[/TOOL_CALL]",
            "{“name”: “get_weather”, “arguments”: {“city”: “Paris”}}",
            "```tool_call\nget_weather\n{\"city\": \"Paris\"}\n```",
            "<zq_run>get_weather {\"city\": \"Paris\"}</zq_run>",
            "<read_file>\n<path>a.txt</path>\n</read_file>",
        ];
        for leak in leaks {
            let text = format!("Let me check. {leak} Done.");
            let line = format!("Let me check.\n{leak}\nDone.");
            for chunk in [1, 2, 3, 7, 1000] {
                let (out, spans) = run(&["get_weather", "get_time", "read_file"], &text, chunk);
                if !leak.starts_with('{') && !leak.starts_with('`') {
                    assert_eq!(out, "Let me check.  Done.", "{leak} in chunks of {chunk}");
                    assert_eq!(spans, vec![leak.to_owned()], "{leak} in chunks of {chunk}");
                }
                let (out, spans) = run(&["get_weather", "get_time", "read_file"], &line, chunk);
                assert_eq!(out, "Let me check.\n\nDone.", "{leak} on its line, in chunks of {chunk}");
                assert_eq!(spans, vec![leak.to_owned()], "{leak} on its line, in chunks of {chunk}");
            }
        }
    }

    #[test]
    fn finds_names_in_a_long_tool_list_and_short_names() {
        // 300 tools is past the packed search (128 literals): the automaton
        // takes over, with the same leftmost answer.
        let names: Vec<String> = (0..300).map(|i| format!("tool_{i:03}")).collect();
        let long = Tools::new(names.iter().map(|name| Tool::named(name)).collect()).unwrap();
        assert!(matches!(long.leads, Leads::Automaton(_)));
        let short = Tools::new(["a", "get_weather"].iter().map(|name| Tool::named(name)).collect()).unwrap();
        assert!(matches!(short.leads, Leads::Packed(_)));
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        for (tools, name) in
            [(&names[..], "tool_299"), (&names[..], "tool_007"), (&["a", "get_weather"][..], "a")]
        {
            let leak = format!("{name}[ARGS]{{\"city\": \"Paris\"}}");
            let text = format!("Calling functions.{name} now.\nSo: {leak} Done.");
            for chunk in [1, 3, 1000] {
                let (out, spans) = run(tools, &text, chunk);
                assert_eq!(spans, vec![leak.clone()], "{name} in chunks of {chunk}");
                assert_eq!(
                    out,
                    format!("Calling functions.{name} now.\nSo:  Done."),
                    "{name} in chunks of {chunk}"
                );
            }
        }
    }

    #[test]
    fn a_line_start_is_read_the_same_skipped_or_unit_by_unit() {
        // In chunks of one, nearly all of the text is a held tail, read unit
        // by unit; in one chunk, prose and the line breaks between prose
        // lines are skipped (`plain_run`). Both must strip the same.
        let starts = [
            "court\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>",
            // The lone word's tag names the tool far from the line's start.
            "court                         \n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>",
            "  get_weather[ARGS]{\"city\": \"Paris\"}",
            "\tfunctions.get_weather:0 {\"city\": \"Paris\"}",
            "commentary to=functions.get_weather json{\"city\":\"Paris\"}",
            "Lie:default_api:get_weather{city:\"Paris\"}",
            "get_weather(city=\"Paris\")",
            "\u{a0}get_weather[ARGS]{\"city\": \"Paris\"}",
            "- a list item that names get_weather in prose",
            "x < y, and z <= w",
            "\r",
            "```\nget_weather(city=\"Paris\")\n```",
        ];
        for start in starts {
            for glue in ["\n", "\n\n", "\r\n", "\n  \n"] {
                let text = format!(
                    "Some prose first, long enough to be skipped.{glue}{start}{glue}And prose after it."
                );
                let whole = run(&["get_weather"], &text, 10_000);
                for chunk in [1, 2, 7] {
                    assert_eq!(run(&["get_weather"], &text, chunk), whole, "{text:?} in chunks of {chunk}");
                }
            }
        }
    }

    #[test]
    fn reads_leads_stray_closers_and_lost_openers() {
        let cases = [
            // A lone mangled opener on the line before the call.
            ("I'll look.\n\ncourt\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>", "I'll look.\n\n"),
            // Harmony with its special tokens gone, the channel word left.
            ("assistantcommentary to=functions.get_weather json{\"city\":\"Paris\"}", ""),
            // A garbled word glued to a distinctive head.
            ("Lie:default_api:get_weather{city:\"Paris\"}", ""),
            // Qwen3-Coder's wrapper closer without its opener.
            ("<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>", ""),
            // Nemotron's array with only the closer.
            ("[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"NYC\"}}]</TOOLCALL>", ""),
            // Kimi's section with its opener lost: each call a leak, the line break between them kept.
            ("get_weather:0<|tool_call_argument_begin|>{\"city\": \"a\"}<|tool_calls_section_end|>\nget_weather:1<|tool_call_argument_begin|>{\"city\": \"b\"}<|tool_calls_section_end|>", "\n"),
            // Two bare JSON calls: two leaks, the space between them kept.
            ("{\"name\": \"get_weather\", \"arguments\": {}} {\"name\": \"get_time\", \"arguments\": {}}", " "),
            // A call with no arguments in a strong wrapper.
            ("<tool_call>get_time</tool_call>", ""),
        ];
        for (text, expected) in cases {
            for chunk in [1, 2, 5, 1000] {
                let (out, _) = run(&["get_weather", "get_time"], text, chunk);
                assert_eq!(out, expected, "{text:?} in chunks of {chunk}");
            }
        }
    }

    #[test]
    fn leaves_prose_and_code_alone() {
        let clean = [
            "Call get_weather(city) to fetch the forecast.",
            "```python\nget_weather(\"Paris\")\n```",
            "<div>get_weather</div>",
            "{\"model\": \"x\", \"tools\": [{\"name\": \"get_weather\", \"arguments\": {}}]}",
            "{\"name\": \"get_weather\", \"description\": \"d\", \"parameters\": {\"type\": \"object\"}}",
            "{\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\", \"properties\": {}}}",
            "<param name=\"get_weather\">text</param>",
            "Use functions.get_weather when asked.",
            "<code>get_weather(city=\"Paris\")</code>",
            "a < b and c > d; {x} [y] get_weatherly",
            // Code blocks are code, whatever they hold, unless they hold a call and nothing else.
            "```xml\n<tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</tool_call>\n```",
            "```text\n<start_function_call>call:get_weather{location:<escape>London<escape>}<end_function_call>\n```",
            "```js\nawait tools.get_weather({ city: 'Paris' });\n```\n```json\n{\"name\": \"get_weather\", \"arguments\": {}}\n{\"name\": \"other\"}\n```",
            "```\n<|python_tag|>get_weather.call(city=\"Paris\")<|eom_id|>\n```",
            // Inline code.
            "The model wrote `<tool_call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call>` instead.",
            "Harmony writes `commentary to=functions.get_weather json{\"city\":\"Paris\"}` there.",
            // A call-shaped object inside a sentence.
            "It prints {\"name\": \"get_weather\", \"arguments\": {\"city\": \"x\"}} and waits.",
            // Markdown links, brackets and notes.
            "See [get_weather(city=\"Paris\")](https://example.com) and [get_weather].",
            "Then [NOTE] get_weather(city=\"Paris\") is cached.",
            // Documents whose elements merely carry the name.
            "<funcdef>int <function>get_weather</function></funcdef><paramdef><parameter>get_weather</parameter></paramdef>",
            "<invoke name=\"get_weather\" partnerLink=\"svc\" operation=\"op\"><correlations/></invoke>",
            "<select name=\"get_weather\"><option>Paris</option></select>",
            "<function name=\"get_weather\"><description>Gets the weather</description></function>",
            "<tool name=\"get_weather\" version=\"2\"/>",
            "### get_weather\n{\"city\": \"Paris\"}",
            "Send it to=get_weather, or to get_weather.",
        ];
        for text in clean {
            for chunk in [1, 3, 1000] {
                for options in [Options::default(), drop_policy()] {
                    let (out, spans) = run_with(&["get_weather"], text, chunk, options);
                    assert_eq!(out, text, "chunks of {chunk}");
                    assert!(spans.is_empty(), "{text}: {spans:?}");
                }
            }
        }
    }

    #[test]
    fn drops_a_call_the_end_cut_off_and_nothing_else() {
        let cut = [
            "Sure. <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Pa",
            "Sure. <tool_call>get_weather\n<arg_key>city</arg_key>",
            "Sure. <invoke name=\"get_weather\">\n<parameter name=\"city\">Par",
            "Sure. <|tool_call_begin|>functions.get_weather:0 {\"city\"",
        ];
        for text in cut {
            for chunk in [1, 4, 1000] {
                let (out, spans) = run_with(&["get_weather"], text, chunk, drop_policy());
                assert_eq!(out, "Sure. ", "{text:?} in chunks of {chunk}");
                assert_eq!(spans.len(), 1);
            }
        }
        // Text that merely ends after a tool's name is no call the end cut off.
        for text in [
            "Ask get_weather.",
            "See get_weather",
            "Use `get_weather",
            "{\"tool\": \"get_weather\", \"x\": 1",
        ] {
            for chunk in [1, 1000] {
                let (out, spans) = run_with(&["get_weather"], text, chunk, drop_policy());
                assert_eq!(out, text);
                assert!(spans.is_empty(), "{text}: {spans:?}");
            }
        }
    }

    #[test]
    fn a_complete_text_loses_nothing() {
        // Whatever the flush finds unfinished comes out as text (emit policy).
        for text in [
            "<tool_call>",
            "<tool_call>get_weather",
            "<｜DSML｜tool_calls",
            "{\"name\": \"get_weather\", \"arguments\": {",
            "[get_weather(",
            "```json\n{\"name\": \"get_weather\"",
            "functions.get_wea",
            "court\n",
            "<|tool_calls_section_end|",
        ] {
            for chunk in [1, 2, 1000] {
                let (out, spans) = run(&["get_weather"], text, chunk);
                let stripped: String = spans.concat();
                assert_eq!(out.len() + stripped.len(), text.len(), "{text:?}");
            }
        }
    }

    #[test]
    fn pathological_text_reads_the_same_in_every_chunking() {
        // Every try reads to the end and fails: the reading credit passes
        // candidates over, the same way whatever the chunking.
        let text = "<invoke name=\"get_weather\"><city>".repeat(4000)
            + "<tool_call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call>";
        let whole = run(&["get_weather"], &text, usize::MAX);
        for chunk in [7, 4096] {
            assert_eq!(run(&["get_weather"], &text, chunk), whole, "chunks of {chunk}");
        }
    }

    #[test]
    fn reads_the_call() {
        let tools = Tools::new(vec![Tool::named("get_weather")]).unwrap();
        let mut stage = CallStage::default();
        let mut log = StripLog::default();
        let mut out = Vec::new();
        stage.feed(
            &tools,
            Options::default(),
            &mut log,
            &units("<|tool_call_start|>[get_weather(city=\"Paris\", days=3)]<|tool_call_end|>"),
            &mut out,
        );
        stage.flush(&tools, Options::default(), &mut log, &mut out);
        let calls = log.calls_of(0);
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].input, Ok(serde_json::json!({"city": "Paris", "days": 3})));
    }

    #[test]
    fn reads_each_argument_shape() {
        let tools = Tools::new(vec![Tool::named("get_weather")]).unwrap();
        let cases = [
            ("<|x|>get_weather{city:<|\"|>Paris<|\"|>, days:3}<|y|>", serde_json::json!({"city": "Paris", "days": 3})),
            ("<|x|>get_weather(city: \"Paris\")<|y|>", serde_json::json!({"city": "Paris"})),
            ("<f name=\"get_weather\"><parameter name=\"n\" string=\"true\">42</parameter><parameter name=\"m\" string=\"false\">42</parameter></f>", serde_json::json!({"n": "42", "m": 42})),
            ("{“name”: “get_weather”, “arguments”: {“city”: “Paris”}}", serde_json::json!({"city": "Paris"})),
            ("[TOOL_CALL]{tool => \"get_weather\", args => {\"city\": \"Paris\"}}[/TOOL_CALL]", serde_json::json!({"city": "Paris"})),
        ];
        for (text, input) in cases {
            let mut stage = CallStage::default();
            let mut log = StripLog::default();
            let mut out = Vec::new();
            stage.feed(&tools, Options::default(), &mut log, &units(text), &mut out);
            stage.flush(&tools, Options::default(), &mut log, &mut out);
            assert_eq!(log.calls_of(0), &[ParsedCall { tool: 0, input: Ok(input) }], "{text}");
        }
    }
}
