//! Tables for the heads issue 30 added (kinds 1, 2, 3 and 5): attribute
//! heads between special tokens, narrated calls, a bare pythonic call alone
//! on its line, harmony channel headers. The generated grammars are in
//! `__test__/filter/tool-aware-kinds.test.mjs`.

use serde_json::{json, Value};

use super::stage::CallStage;
use super::tools::Tools;
use crate::filter::strip::{CalledTool, OpenSpanPolicy, Options, StripLog};
use crate::filter::tool_names::Tool;

const TOOLS: [&str; 4] = ["get_weather", "StrReplace", "terminal", "search web"];

/// The output, and each strip's calls as (tool name, arguments).
fn run(text: &str, chunk: usize, options: Options) -> (String, Vec<(String, Value)>) {
    let tools = Tools::new(TOOLS.iter().map(|name| Tool::named(name)).collect()).expect("a tool list");
    let mut stage = CallStage::default();
    let mut log = StripLog::default();
    let mut out = Vec::new();
    let units: Vec<u16> = text.encode_utf16().collect();
    for piece in units.chunks(chunk.max(1)) {
        stage.feed(&tools, options, &mut log, piece, &mut out);
    }
    stage.flush(&tools, &mut log, &mut out);
    let calls = (0..log.spans().count())
        .flat_map(|index| log.calls_of(index).to_vec())
        .map(|call| {
            let name = match call.tool {
                CalledTool::Offered(index) => TOOLS[index].to_owned(),
                CalledTool::Unoffered(name) => String::from_utf16_lossy(&name),
            };
            (name, call.input.expect("arguments that parse"))
        })
        .collect();
    (String::from_utf16_lossy(&out), calls)
}

fn options() -> [Options; 2] {
    [Options::default(), Options { open_span_at_end: OpenSpanPolicy::Drop, ..Options::default() }]
}

/// Each leak comes out as `clean`, its calls read, in every chunking.
fn strips(cases: &[(&str, &str, &[(&str, Value)])]) {
    for &(text, clean, calls) in cases {
        let calls: Vec<(String, Value)> =
            calls.iter().map(|(name, input)| ((*name).to_owned(), input.clone())).collect();
        for chunk in [1, 2, 3, 7, 10_000] {
            for options in options() {
                let (out, read) = run(text, chunk, options);
                assert_eq!(out, clean, "{text:?} in chunks of {chunk}");
                assert_eq!(read, calls, "{text:?} in chunks of {chunk}");
            }
        }
    }
}

/// Each text comes out unchanged, nothing stripped, in every chunking.
fn leaves(texts: &[&str]) {
    for &text in texts {
        for chunk in [1, 3, 10_000] {
            for options in options() {
                assert_eq!(
                    run(text, chunk, options),
                    (text.to_owned(), Vec::new()),
                    "{text:?} in chunks of {chunk}"
                );
            }
        }
    }
}

#[test]
fn reads_attribute_heads_between_special_tokens() {
    strips(&[
        (
            "On it.<|open|>tools<|sep|><|open|>call tool=\"get_weather\" index=\"1\"<|sep|><|open|>argument key=\"city\" type=\"string\"<|sep|>Paris<|close|>argument<|sep|><|open|>argument key=\"days\" type=\"number\"<|sep|>2<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|> Done.",
            "On it. Done.",
            &[("get_weather", json!({"city": "Paris", "days": 2}))],
        ),
        // Garbled: `tools` glued to `call`, an entry's closing token lost.
        (
            "<|open|>toolscall tool=\"StrReplace\" index=\"1\"<|sep|><|open|>argument key=\"path\" type=\"string\"<|sep|>src/rendererargument<|sep|><|close|>call<|sep|><|close|>toolstoolsmessage<|sep|>",
            "",
            &[("StrReplace", json!({"path": "src/renderer"}))],
        ),
        // Two calls, a JSON block, a string typed so, an escaped name, full-width bars.
        (
            "<｜o｜>calls<｜s｜>\n<｜o｜>fn name=\"search web\" id=\"c1\"<｜s｜>\n<｜o｜>json type=\"object\"<｜s｜>{\"q\": \"rust\"}<｜c｜>json<｜s｜>\n<｜c｜>fn<｜s｜>\n<｜o｜>fn index=\"2\" name=\"terminal\"<｜s｜><｜o｜>arg key=\"cmd\" type=\"string\"<｜s｜>42<｜c｜>arg<｜s｜><｜o｜>arg key=\"ok\" type=\"boolean\"<｜s｜>true<｜c｜>arg<｜s｜><｜c｜>fn<｜s｜>",
            "",
            &[("search web", json!({"q": "rust"})), ("terminal", json!({"cmd": "42", "ok": true}))],
        ),
        // No arguments; no closers before the text's end.
        ("<|open|>call tool=\"terminal\"<|sep|><|close|>call<|sep|>", "", &[("terminal", json!({}))]),
        (
            "<|open|>call tool=\"terminal\"<|sep|><|open|>argument key=\"cmd\"<|sep|>ls<|close|>argument<|sep|>",
            "",
            &[("terminal", json!({"cmd": "ls"}))],
        ),
    ]);
    leaves(&[
        // A tag's attributes, not a token's; a token with prose after it; a tool that is not offered.
        "<call tool=\"get_weather\" index=\"1\">x</call>",
        "Between <|open|> and <|sep|> goes argument key=\"city\" type=\"string\", for get_weather.",
        "<|open|>call tool=\"other_tool\" index=\"1\"<|sep|><|close|>call<|sep|>",
        "<|open|>call tool=\"get_weather\" unknown=\"1\"<|sep|>",
        "```\n<|open|>call tool=\"get_weather\" index=\"1\"<|sep|><|close|>call<|sep|>\n```",
    ]);
}

#[test]
fn reads_narrated_calls() {
    strips(&[
        (
            "…Assistant called tool terminal (call_resync_1) with arguments: {\"command\":\"ls\"}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
            "…",
            &[("terminal", json!({"command": "ls"}))],
        ),
        (
            "Sure.\nCalled tool get_weather with args: {\"city\": \"Paris\"}\nDone.",
            "Sure.\n\nDone.",
            &[("get_weather", json!({"city": "Paris"}))],
        ),
        ("OK: get_weather Args :{\"city\":\"Paris\"}", "OK", &[("get_weather", json!({"city": "Paris"}))]),
        (
            ": search web Arguments: {\"q\": 1}<|im_end|>\nNext.",
            "\nNext.",
            &[("search web", json!({"q": 1}))],
        ),
    ]);
    leaves(&[
        "I called get_weather and it said it was sunny.",
        "I called tool get_weather with arguments: {\"city\": \"Paris\"}",
        "Called tool get_weather with arguments: {\"city\": \"Paris\"} and it returned 20.",
        "Called tool get_weather with arguments: none.",
        "Assistant called tool other_tool with arguments: {\"a\": 1}",
        "The log: get_weather args: {\"city\": \"Paris\"}",
        "The log: get_weather Args: {\"city\": \"Paris\"}, then more.",
        "`Assistant called tool get_weather with arguments: {\"city\": \"Paris\"}`",
    ]);
}

#[test]
fn reads_a_bare_pythonic_call_alone_on_its_line() {
    strips(&[
        ("get_weather(location=\"San Francisco\")", "", &[("get_weather", json!({"location": "San Francisco"}))]),
        (
            "Let me look.\n  get_weather(city='Paris', days=3, hourly=True, unit=None)  \r\nterminal(cmd=[\"ls\", \"-la\"])\nDone.",
            "Let me look.\n    \r\n\nDone.",
            &[
                ("get_weather", json!({"city": "Paris", "days": 3, "hourly": true, "unit": null})),
                ("terminal", json!({"cmd": ["ls", "-la"]})),
            ],
        ),
    ]);
    leaves(&[
        "```python\nget_weather(city=\"Paris\")\n```",
        ">>> get_weather(city=\"Paris\")",
        "$ get_weather(city=\"Paris\")",
        "- get_weather(city=\"Paris\")",
        "Example:\n\n    get_weather(city=\"Paris\")\n\tget_weather(city=\"Rome\")",
        "get_weather(\"Paris\")",
        "get_weather()",
        "get_weather(city=city)",
        "get_weather(city: \"Paris\")",
        "get_weather(city=\"Paris\")  # cached",
        "get_weather(city=\"Paris\"); terminal(cmd=\"ls\")",
        "result = get_weather(city=\"Paris\")",
        "Run get_weather(city=\"Paris\") to see it.",
        "get_weather(\n    city=\"Paris\",\n)",
        "get_weather.call(city=\"Paris\")",
        "`get_weather(city=\"Paris\")`",
    ]);
}

#[test]
fn reads_harmony_channel_headers() {
    strips(&[
        (
            "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary to=get_weather <|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|><|start|>assistant<|channel|>final<|message|>Sunny.",
            "Need the weather.Sunny.",
            &[("get_weather", json!({"city": "Paris"}))],
        ),
        (
            "Let me check.\ncommentary to=get_weather json{\"city\":\"Paris\"}",
            "Let me check.\n",
            &[("get_weather", json!({"city": "Paris"}))],
        ),
        ("assistantcommentary to=terminal json{\"cmd\":\"ls\"}", "", &[("terminal", json!({"cmd": "ls"}))]),
        // A header alone: at the text's start, and opening with the tokens that end a message.
        ("<|channel|>final<|message|>Hello!", "Hello!", &[]),
        ("Thinking.<|end|><|start|>assistant<|channel|>final<|message|>Hello!", "Thinking.Hello!", &[]),
    ]);
    leaves(&[
        "gpt-oss writes <|channel|>analysis<|message|> before its reasoning.",
        "`<|channel|>analysis<|message|>` comes first.",
        "Send it to=get_weather, or to get_weather.",
        "The commentary to=get_weather json{} line is harmony's.",
        "commentary to=other_tool json{\"a\": 1}",
        "<|channel|>summary<|message|>x",
    ]);
}
