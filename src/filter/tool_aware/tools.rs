//! The offered tools, checked, and the search for the places where one may
//! be named: the names and the distinctive prefixes (`functions.`, `to=`,
//! `default_api`), found in the text narrowed to a byte a unit.

use aho_corasick::packed::{self, Searcher};
use aho_corasick::{AhoCorasick, AhoCorasickKind, Input};

use super::text::{ascii, Reading, Stop};
use crate::filter::json::string_units;
use crate::filter::scan::narrowed;
use crate::filter::tool_names::{first_fault, Tool};

/// Why a tool list cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolsError {
    /// The index of the tool at fault.
    pub tool: usize,
    pub reason: String,
}

/// The offered tools, checked (see [`crate::filter::tool_names`]): names
/// non-empty, at most [`MAX_NAME`](crate::filter::MAX_NAME) units, without line breaks, and distinct.
#[derive(Clone, Debug)]
pub struct Tools {
    pub(super) tools: Vec<Tool>,
    /// Whether some name begins with this unit (ASCII only; others always
    /// answer yes and are compared).
    first: [bool; 128],
    /// The longest name, in code units.
    pub(super) longest: usize,
    /// Finds, in the text narrowed to a byte a unit, an offered name or a distinctive prefix
    /// (`functions.`, `to=`, `default_api`), wherever it stands: the only
    /// places where a bare head can begin a leak mid-line. Built once per
    /// tool list; a multi-literal search, so prose is skipped at memory
    /// speed instead of word by word.
    pub(super) leads: Leads,
}

/// The search for leads: packed (Teddy, built in a few microseconds) where
/// it can be, which is up to 128 literals on x86-64 and AArch64; else an
/// automaton (for a longer tool list, or another processor).
#[derive(Clone, Debug)]
pub(super) enum Leads {
    Packed(Searcher),
    Automaton(AhoCorasick),
}

impl Leads {
    pub(super) fn new(literals: &[Vec<u8>]) -> Option<Leads> {
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
            .chain(LEAD_PREFIXES.iter().chain(&NARRATION_LEADS).map(|prefix| prefix.as_bytes().to_vec()))
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
    pub(super) fn name_may_begin(&self, rest: &[u16]) -> bool {
        let Some(&unit) = rest.first() else { return false };
        if !self.may_begin_with(unit) {
            return false;
        }
        self.tools.iter().any(|tool| tool.name[0] == unit && tool.name.iter().zip(rest).all(|(a, b)| a == b))
    }

    /// Whether some name may begin with `unit` (a unit beyond ASCII may).
    fn may_begin_with(&self, unit: u16) -> bool {
        ascii(unit).is_none_or(|byte| self.first[usize::from(byte)])
    }

    /// The tool whose name is exactly `units`.
    pub(super) fn named(&self, units: &[u16]) -> Option<usize> {
        self.tools.iter().position(|tool| tool.name == units)
    }

    /// The tool that the JSON string literal `quoted` (quotes included)
    /// names, its escapes read (`m\u00e9t\u00e9o`, a lone `\ud800`).
    pub(super) fn json_named(&self, quoted: &[u16]) -> Option<usize> {
        match quoted.get(1..quoted.len().saturating_sub(1)) {
            Some(inner) if !inner.contains(&u16::from(b'\\')) => self.named(inner),
            _ => self.named(&string_units(quoted)?),
        }
    }

    /// The longest name that `text[at..]` begins with, or `More` when the
    /// text may still grow and ends inside a name that could still match.
    pub(super) fn name_at(&self, text: &[u16], at: usize, complete: bool) -> Reading<Option<(usize, usize)>> {
        let rest = &text[at.min(text.len())..];
        // No name begins with the first unit: none is here, and none can
        // still be spelled out.
        if rest.first().is_some_and(|&unit| !self.may_begin_with(unit)) {
            return Ok(None);
        }
        let mut best: Option<(usize, usize)> = None;
        let mut partial = false;
        for (index, tool) in self.tools.iter().enumerate() {
            let name = &tool.name[..];
            if rest.first().is_some_and(|&unit| unit != name[0]) {
                continue;
            }
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

    pub(super) fn accepts_key(&self, tool: usize, key: &str) -> bool {
        match &self.tools[tool].parameters {
            None => true,
            Some(parameters) => parameters.iter().any(|p| String::from_utf16_lossy(p) == key),
        }
    }
}

/// The distinctive prefixes' first word: what [`Tools::leads`]
/// finds besides the names (and the narrations' openings,
/// [`NARRATION_LEADS`]).
const LEAD_PREFIXES: [&str; 3] = ["functions.", "to=", "default_api"];

/// Where a narrated call may begin, besides an offered name (see
/// `narrated`): the transcript's role and verb.
pub(super) const NARRATION_LEADS: [&str; 6] = [
    "Assistant called tool ",
    "assistant called tool ",
    "Called tool ",
    "called tool ",
    "Calling tool ",
    "calling tool ",
];

/// The length of the longest of [`LEAD_PREFIXES`] and [`NARRATION_LEADS`].
pub(super) const LONGEST_PREFIX: usize = "assistant called tool ".len();

/// Where, from `from`, the next offered name or distinctive prefix begins
/// (as [`Tools::leads`] finds them in `narrow`, the text narrowed by
/// [`narrowed`](crate::filter::scan::narrowed)), or `narrow.len()`. A match is only a place to look: the
/// caller checks the units themselves.
pub(super) fn next_lead(tools: &Tools, narrow: &[u8], from: usize) -> usize {
    tools.leads.find(narrow, from).unwrap_or(narrow.len())
}
