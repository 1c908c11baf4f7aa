//! Which offered tools tool-aware detection can use.
//!
//! A tool list comes from wherever an agent got its tools: its own code, a
//! schema, an MCP server that names a tool with 300 characters or a line
//! break. Detection reads a tool's name where a call's name goes, so a name
//! must be something a call can spell on one line: non-empty, at most
//! [`MAX_NAME`] UTF-16 code units, with no line break, and given once. A
//! parameter name must be non-empty. Any other name is usable, in any
//! script, lone surrogates included: names are compared unit for unit.
//!
//! [`usable_tools`] is where these rules live. It keeps what detection can
//! use and says why it left out the rest; a filter made with a tool list
//! (`Tools::new`) asks the same rules, and refuses a list that would leave
//! anything out, naming the first tool at fault.

use std::collections::HashSet;

/// One offered tool: its name, and its parameter names when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tool {
    pub name: Vec<u16>,
    pub parameters: Option<Vec<Vec<u16>>>,
}

impl Tool {
    pub fn named(name: &str) -> Self {
        Tool { name: name.encode_utf16().collect(), parameters: None }
    }

    pub fn with_parameters(name: &str, parameters: &[&str]) -> Self {
        Tool {
            name: name.encode_utf16().collect(),
            parameters: Some(parameters.iter().map(|p| p.encode_utf16().collect()).collect()),
        }
    }
}

/// The longest tool name detection uses, in code units.
pub const MAX_NAME: usize = 256;

/// Why a tool was left out of a list, or (`EmptyParameter`) kept without
/// its empty parameter names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    EmptyName,
    LongName,
    LineBreak,
    /// An earlier tool has the same name: the first is kept.
    RepeatedName,
    /// The tool is kept; its empty parameter names are not.
    EmptyParameter,
}

impl SkipReason {
    /// Its name in JavaScript.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::EmptyName => "empty-name",
            SkipReason::LongName => "long-name",
            SkipReason::LineBreak => "line-break",
            SkipReason::RepeatedName => "repeated-name",
            SkipReason::EmptyParameter => "empty-parameter",
        }
    }

    /// The rule, as a filter that refuses the list states it.
    pub fn message(self) -> &'static str {
        match self {
            SkipReason::EmptyName => "a tool's name must not be empty",
            SkipReason::LongName => "a tool's name must be at most 256 characters",
            SkipReason::LineBreak => "a tool's name must not hold a line break",
            SkipReason::RepeatedName => "this name is given twice",
            SkipReason::EmptyParameter => "a parameter's name must not be empty",
        }
    }

    /// Whether the tool itself is left out (else only some of its
    /// parameter names are).
    pub fn drops_tool(self) -> bool {
        self != SkipReason::EmptyParameter
    }
}

/// A tool that [`usable_tools`] left out, or kept with fewer parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Its index in the list given.
    pub index: usize,
    /// Its name, as given.
    pub name: Vec<u16>,
    pub reason: SkipReason,
}

/// A tool list as detection can use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsableTools {
    /// The usable tools, in the list's order, without their empty
    /// parameter names.
    pub tools: Vec<Tool>,
    /// For each of `tools`, its index in the list given.
    pub from: Vec<usize>,
    /// What was left out or trimmed, in the list's order: at most one
    /// entry a tool.
    pub skipped: Vec<Skipped>,
}

/// The tools of `tools` that detection can use: each name non-empty, at
/// most [`MAX_NAME`] units, without a line break (`\n` or `\r`), and not
/// an earlier usable tool's; each parameter name non-empty. A tool whose
/// name breaks a rule is left out; a tool with an empty parameter name is
/// kept without it. Each is reported once, with the first rule it breaks
/// in that order.
pub fn usable_tools(tools: Vec<Tool>) -> UsableTools {
    let skipped: Vec<Skipped> = faults(&tools).collect();
    let mut usable = UsableTools { tools: Vec::with_capacity(tools.len()), from: Vec::new(), skipped };
    let mut reports = usable.skipped.iter().peekable();
    for (index, mut tool) in tools.into_iter().enumerate() {
        match reports.next_if(|report| report.index == index).map(|report| report.reason) {
            Some(reason) if reason.drops_tool() => continue,
            Some(_) => {
                if let Some(parameters) = &mut tool.parameters {
                    parameters.retain(|name| !name.is_empty());
                }
            }
            None => {}
        }
        usable.tools.push(tool);
        usable.from.push(index);
    }
    usable
}

/// The first tool of `tools` that [`usable_tools`] would report, if any:
/// what a filter refuses a list for.
pub fn first_fault(tools: &[Tool]) -> Option<Skipped> {
    faults(tools).next()
}

/// What is wrong with each tool, in order, found as the caller asks for it.
fn faults(tools: &[Tool]) -> impl Iterator<Item = Skipped> + '_ {
    let mut seen: HashSet<&[u16]> = HashSet::new();
    tools.iter().enumerate().filter_map(move |(index, tool)| {
        let reason = name_fault(&tool.name)
            .or_else(|| (!seen.insert(&tool.name)).then_some(SkipReason::RepeatedName))
            .or_else(|| {
                let empty = tool.parameters.as_ref().is_some_and(|names| names.iter().any(Vec::is_empty));
                empty.then_some(SkipReason::EmptyParameter)
            })?;
        Some(Skipped { index, name: tool.name.clone(), reason })
    })
}

/// Why a name alone cannot be used, if it cannot.
fn name_fault(name: &[u16]) -> Option<SkipReason> {
    if name.is_empty() {
        Some(SkipReason::EmptyName)
    } else if name.len() > MAX_NAME {
        Some(SkipReason::LongName)
    } else if name.iter().any(|&unit| unit == u16::from(b'\n') || unit == u16::from(b'\r')) {
        Some(SkipReason::LineBreak)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use SkipReason::*;

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    /// A name of `length` units.
    fn long(length: usize) -> String {
        "x".repeat(length)
    }

    #[test]
    fn each_rule_in_a_table() {
        let longest = long(256);
        // (case, the list, the names kept, what is skipped)
        type Row<'a> = (&'a str, Vec<Tool>, Vec<&'a str>, Vec<(usize, SkipReason)>);
        let cases: Vec<Row> = vec![
            ("nothing", vec![], vec![], vec![]),
            ("plain names", vec![Tool::named("a"), Tool::named("b")], vec!["a", "b"], vec![]),
            ("empty name", vec![Tool::named(""), Tool::named("a")], vec!["a"], vec![(0, EmptyName)]),
            ("256 units", vec![Tool::named(&long(256))], vec![&longest], vec![]),
            ("257 units", vec![Tool::named(&long(257)), Tool::named("a")], vec!["a"], vec![(0, LongName)]),
            ("line feed", vec![Tool::named("a\nb")], vec![], vec![(0, LineBreak)]),
            ("carriage return", vec![Tool::named("a\rb"), Tool::named("c")], vec!["c"], vec![(0, LineBreak)]),
            ("a tab is no line break", vec![Tool::named("a\tb")], vec!["a\tb"], vec![]),
            (
                "the first of a repeated name",
                vec![Tool::named("a"), Tool::named("b"), Tool::with_parameters("a", &["x"])],
                vec!["a", "b"],
                vec![(2, RepeatedName)],
            ),
            (
                "an unusable name repeated is reported for itself",
                vec![Tool::named(""), Tool::named("")],
                vec![],
                vec![(0, EmptyName), (1, EmptyName)],
            ),
            (
                "an empty parameter keeps the tool",
                vec![Tool::with_parameters("a", &["", "city", ""]), Tool::named("b")],
                vec!["a", "b"],
                vec![(0, EmptyParameter)],
            ),
            (
                "a name's fault comes before its parameters'",
                vec![Tool::with_parameters("", &[""])],
                vec![],
                vec![(0, EmptyName)],
            ),
            (
                "any script",
                vec![Tool::named("météo"), Tool::named("天气"), Tool::named("🌤")],
                vec!["météo", "天气", "🌤"],
                vec![],
            ),
            // 128 emoji are 256 units; one more is too long.
            ("units, not characters", vec![Tool::named(&"🌤".repeat(129))], vec![], vec![(0, LongName)]),
        ];
        for (case, tools, kept, skipped) in cases {
            let usable = usable_tools(tools.clone());
            let names: Vec<Vec<u16>> = usable.tools.iter().map(|tool| tool.name.clone()).collect();
            assert_eq!(names, kept.iter().map(|name| units(name)).collect::<Vec<_>>(), "{case}");
            let got: Vec<(usize, SkipReason)> = usable.skipped.iter().map(|s| (s.index, s.reason)).collect();
            assert_eq!(got, skipped, "{case}");
            assert!(usable.skipped.iter().all(|s| s.name == tools[s.index].name), "{case}");
            assert_eq!(first_fault(&tools).as_ref(), usable.skipped.first(), "{case}");
            // Each kept tool is the one at its index, less empty parameter names.
            for (tool, &index) in usable.tools.iter().zip(&usable.from) {
                assert_eq!(tool.name, tools[index].name, "{case}");
            }
        }
        // A lone surrogate is a unit like any other.
        let with_lone = vec![Tool { name: vec![0x61, 0xD800], parameters: None }];
        assert_eq!(usable_tools(with_lone.clone()).tools, with_lone);
    }

    #[test]
    fn empty_parameter_names_are_dropped_and_the_rest_kept_in_order() {
        let usable = usable_tools(vec![Tool::with_parameters("a", &["", "city", "", "days"])]);
        assert_eq!(usable.tools, vec![Tool::with_parameters("a", &["city", "days"])]);
        // Every parameter empty: the tool takes none that can be named.
        let usable = usable_tools(vec![Tool::with_parameters("a", &[""])]);
        assert_eq!(usable.tools, vec![Tool::with_parameters("a", &[])]);
    }

    #[test]
    fn the_filter_refuses_what_the_list_would_leave_out() {
        let tools = vec![Tool::named("a"), Tool::with_parameters("b", &[""]), Tool::named("a")];
        assert_eq!(first_fault(&tools), Some(Skipped { index: 1, name: units("b"), reason: EmptyParameter }));
        assert_eq!(first_fault(&tools[..1]), None);
    }
}
