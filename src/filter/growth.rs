//! The filter's work grows linearly with its input: counted, not timed.
//!
//! The general engine and tool-aware detection count what they do (units
//! read, threads stepped, compared, merged and dropped; see `count_work!`),
//! in tests only. Each row below feeds a text made of one shape repeated
//! `n` times, at 1, 4 and 16 times a base `n`, and asserts that the work at
//! 4x stays within 5 times the work at 1x, and at 16x within 20 times: a
//! quarter over proportional, where quadratic work would be 16 and 256
//! times. The shapes are the ones that made the engine's work grow faster
//! than its input (issue 28): a span left open while other patterns
//! complete inside it, openers that keep threads alive, matches of a
//! regular expression that can always grow, JSON calls nested line by line.

use std::sync::Arc;

use super::pattern::Pattern;
use super::presets::{special_token_patterns, PRESETS};
use super::registry::Registry;
use super::tool_aware::Tools;
use super::tool_names::Tool;
use super::{OpenSpanPolicy, Options, ScaffoldingFilter};

/// The three registries the issue names.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Every family's special tokens, with one offered tool: what every
    /// framework guard runs by default, tool-aware detection included.
    SpecialTokensAndTool,
    /// Every preset at once.
    EveryPreset,
    /// Two spans and a token that is the second span's end.
    TwoSpansAndEnd,
}

fn filter(kind: Kind, policy: OpenSpanPolicy) -> ScaffoldingFilter {
    let options = Options { open_span_at_end: policy, ..Options::default() };
    let (patterns, tools) = match kind {
        Kind::SpecialTokensAndTool => (
            special_token_patterns().into_iter().map(|pattern| pattern.to_pattern()).collect(),
            Some(Arc::new(Tools::new(vec![Tool::named("get_weather")]).expect("a tool list"))),
        ),
        Kind::EveryPreset => (PRESETS.iter().flat_map(|preset| preset.to_patterns()).collect(), None),
        Kind::TwoSpansAndEnd => {
            (vec![Pattern::span("<a>", "</a>"), Pattern::span("<b>", "</b>"), Pattern::token("</b>")], None)
        }
    };
    let registry = Arc::new(Registry::new(patterns).expect("a registry"));
    ScaffoldingFilter::with_tools(registry, options, tools)
}

/// One row: a registry, a shape, and the text of `n` repetitions.
struct Row {
    kind: Kind,
    shape: &'static str,
    text: fn(usize) -> String,
}

const fn row(kind: Kind, shape: &'static str, text: fn(usize) -> String) -> Row {
    Row { kind, shape, text }
}

/// The reported shape: LFM2's span left open, a Hermes closer after it.
fn reported(n: usize) -> String {
    "<|tool_call_start|></tool_call>".repeat(n)
}

const ROWS: &[Row] = &[
    row(Kind::SpecialTokensAndTool, "reported", reported),
    row(Kind::SpecialTokensAndTool, "an opener and another span's closer", |n| {
        "<|tool_call_start|><|python_end|>".repeat(n)
    }),
    row(Kind::SpecialTokensAndTool, "two spans' openers alternating", |n| {
        "<|tool_call_start|><|python_start|>".repeat(n)
    }),
    row(Kind::SpecialTokensAndTool, "nested openers", |n| {
        "<|python_tag|>[TOOL_CALLS][".repeat(n) + &"]".repeat(n)
    }),
    row(Kind::SpecialTokensAndTool, "nested call objects that never close", |n| {
        r#"<|tool_call_start|>{"name": "get_weather", "arguments": {"a": "#.repeat(n)
    }),
    row(Kind::SpecialTokensAndTool, "unclosed openers", |n| "<|tool_call_start|>".repeat(n * 8)),
    // Texts shaped to make tool-aware detection read far and fail.
    row(Kind::SpecialTokensAndTool, "elements that never close", |n| {
        r#"<invoke name="get_weather"><city>"#.repeat(n * 2)
    }),
    row(Kind::SpecialTokensAndTool, "names with no arguments", |n| "<tool_call>get_weather ".repeat(n * 2)),
    row(Kind::SpecialTokensAndTool, "lists that never close", |n| "[get_weather(".repeat(n * 4)),
    row(Kind::SpecialTokensAndTool, "fences", |n| "```\n".repeat(n * 8)),
    // Texts shaped against the residue, end and not-offered rules (issue 30).
    row(Kind::SpecialTokensAndTool, "closers and empty wrappers with no call", |n| {
        "</parameter></function>\n<tool_calls></tool_calls> ".repeat(n * 2)
    }),
    row(Kind::SpecialTokensAndTool, "parameter tags with no head that never close", |n| {
        "<parameter=a>\nv\n".repeat(n * 4)
    }),
    row(Kind::SpecialTokensAndTool, "a named head whose arguments never close", |n| {
        "<function=get_weather>\n<parameter=a>\nv\n".repeat(n * 2)
    }),
    row(Kind::SpecialTokensAndTool, "calls to a tool not on offer that never close", |n| {
        r#"<tool_call>{"name": "make_thing", "arguments": {"a": "#.repeat(n)
    }),
    row(Kind::SpecialTokensAndTool, "made-up calls with argument tags that never close", |n| {
        "<function=make_thing><parameter=a>".repeat(n * 2)
    }),
    row(Kind::SpecialTokensAndTool, "special tokens cut short", |n| {
        "<|tool_call <｜tool▁calls ".repeat(n * 2)
    }),
    // The heads issue 30 added: attribute heads, narrations, bare lines, channel headers.
    row(Kind::SpecialTokensAndTool, "attribute heads with no separator", |n| {
        r#"<|open|>call tool="get_weather" index="1" "#.repeat(n * 2)
    }),
    row(Kind::SpecialTokensAndTool, "argument entries with no head", |n| {
        r#"<|open|>argument key="a" type="string"<|sep|>x"#.repeat(n * 2)
    }),
    row(Kind::SpecialTokensAndTool, "an entry whose value never ends", |n| {
        r#"<|open|>call tool="get_weather"<|sep|><|open|>argument key="a"<|sep|>"#.to_owned()
            + &"x y ".repeat(n * 16)
    }),
    row(Kind::SpecialTokensAndTool, "narrations whose JSON never closes", |n| {
        "Assistant called tool get_weather with arguments: {\"a\": ".repeat(n)
    }),
    row(Kind::SpecialTokensAndTool, "narrations that go on after their JSON", |n| {
        "Called tool get_weather with args: {\"a\": 1} and more\n".repeat(n)
    }),
    row(Kind::SpecialTokensAndTool, "labelled names with no JSON", |n| ": get_weather Args :".repeat(n * 4)),
    row(Kind::SpecialTokensAndTool, "bare calls that never close on their line", |n| {
        "get_weather(city=[\"a\", (\n".repeat(n * 4)
    }),
    row(Kind::SpecialTokensAndTool, "a bare call's line that never ends", |n| {
        "get_weather(city=\"x\")".to_owned() + &" ".repeat(n * 32)
    }),
    row(Kind::SpecialTokensAndTool, "channel headers", |n| "<|channel|>analysis<|message|>".repeat(n * 4)),
    row(Kind::SpecialTokensAndTool, "channel headers with no message", |n| {
        "<|end|><|start|>assistant<|channel|>final".repeat(n * 2)
    }),
    row(Kind::SpecialTokensAndTool, "channel words before to= with no call", |n| {
        "commentary to=get_weather json\n".repeat(n * 2)
    }),
    row(Kind::EveryPreset, "reported", reported),
    row(Kind::EveryPreset, "an opener and another span's closer", |n| "<tool_call><|python_end|>".repeat(n)),
    row(Kind::EveryPreset, "two spans' openers alternating", |n| "<tool_call><|tool_call_start|>".repeat(n)),
    row(Kind::EveryPreset, "nested openers", |n| {
        "<tool_call><|python_start|>".repeat(n) + &"</tool_call><|python_end|>".repeat(n)
    }),
    row(Kind::EveryPreset, "unclosed openers", |n| "<tool_call>".repeat(n * 8)),
    row(Kind::EveryPreset, "a closer that a regular expression can always extend", |n| {
        "</｜DSML｜invoke> ".repeat(n)
    }),
    row(Kind::EveryPreset, "JSON calls nested line by line", |n| "[\n".repeat(n * 4)),
    row(Kind::EveryPreset, "JSON calls nested line by line, then closed", |n| {
        "[\n".repeat(n * 2) + &"]\n".repeat(n * 2)
    }),
    row(Kind::EveryPreset, "JSON objects nested line by line, then closed", |n| {
        "{\"a\":\n".repeat(n) + "1" + &"}\n".repeat(n)
    }),
    row(Kind::EveryPreset, "a call nested in JSON lists line by line", |n| {
        "[\n".repeat(n) + r#"{"name": "get_weather", "arguments": {}}"# + &"\n]".repeat(n)
    }),
    row(Kind::TwoSpansAndEnd, "reported", reported),
    row(Kind::TwoSpansAndEnd, "an opener and another span's closer", |n| "<a></b>".repeat(n * 4)),
    row(Kind::TwoSpansAndEnd, "two spans' openers alternating", |n| "<a><b>".repeat(n * 4)),
    row(Kind::TwoSpansAndEnd, "nested openers", |n| "<a><b>".repeat(n * 2) + &"</b></a>".repeat(n * 2)),
    row(Kind::TwoSpansAndEnd, "unclosed openers", |n| "<a>".repeat(n * 8)),
];

/// The base number of repetitions (1x).
const BASE: usize = 100;

/// The work of one stream: `text` fed in pieces of 64 units, then flushed.
fn work(kind: Kind, policy: OpenSpanPolicy, text: &str) -> u64 {
    let mut filter = filter(kind, policy);
    let units: Vec<u16> = text.encode_utf16().collect();
    for chunk in units.chunks(64) {
        filter.feed(chunk);
    }
    filter.flush();
    filter.work().expect("these registries run on the general engine")
}

#[test]
fn work_grows_linearly_with_the_input() {
    let mut over = Vec::new();
    for row in ROWS {
        for policy in [OpenSpanPolicy::Emit, OpenSpanPolicy::Drop] {
            let name = format!("{:?}, {}, {policy:?}", row.kind, row.shape);
            let at = |scale: usize| work(row.kind, policy, &(row.text)(BASE * scale));
            let (one, four) = (at(1), at(4));
            // (A row already over at 4x is not run at 16x: on a quadratic
            // engine that would take minutes.)
            let sixteen = if four <= 5 * one { Some(at(16)) } else { None };
            eprintln!("{name}: {one} at 1x, {four} at 4x, {sixteen:?} at 16x");
            if four > 5 * one || sixteen.is_some_and(|sixteen| sixteen > 20 * one) {
                over.push(format!("{name}: {one} at 1x, {four} at 4x, {sixteen:?} at 16x"));
            }
        }
    }
    assert!(over.is_empty(), "work grew faster than the input:\n{}", over.join("\n"));
}
