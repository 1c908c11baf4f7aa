use super::stage::CallStage;
use super::tools::{Leads, Tools};
use crate::filter::strip::{CalledTool, OpenSpanPolicy, Options, ParsedCall, StripLog};
use crate::filter::tool_names::Tool;

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
    stage.flush(&tools, &mut log, &mut out);
    let spans = log.spans().map(String::from_utf16_lossy).collect();
    (String::from_utf16_lossy(&out), spans)
}

fn run(tools: &[&str], text: &str, chunk: usize) -> (String, Vec<String>) {
    run_with(tools, text, chunk, Options::default())
}

/// Asserts each text passes unchanged, with no strip, with `get_weather`
/// offered, in chunks of 1, 3 and 1000 units, under either end policy.
fn unchanged_with_get_weather(texts: &[&str]) {
    for text in texts {
        for chunk in [1, 3, 1000] {
            for options in [Options::default(), drop_policy()] {
                let (out, spans) = run_with(&["get_weather"], text, chunk, options);
                assert_eq!(out, *text, "chunks of {chunk}");
                assert!(spans.is_empty(), "{text}: {spans:?}");
            }
        }
    }
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
            let text =
                format!("Some prose first, long enough to be skipped.{glue}{start}{glue}And prose after it.");
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
    unchanged_with_get_weather(&clean);
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
    for text in
        ["Ask get_weather.", "See get_weather", "Use `get_weather", "{\"tool\": \"get_weather\", \"x\": 1"]
    {
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
    stage.flush(&tools, &mut log, &mut out);
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
        stage.flush(&tools, &mut log, &mut out);
        assert_eq!(log.calls_of(0), &[ParsedCall::offered(0, Ok(input))], "{text}");
    }
}

/// The calls of every strip, as `(name, offered, input)`, for tables.
fn run_calls(tools: &[&str], text: &str, chunk: usize) -> (String, Vec<String>, Vec<(String, bool, String)>) {
    let list = Tools::new(tools.iter().map(|name| Tool::named(name)).collect()).unwrap();
    let mut stage = CallStage::default();
    let mut log = StripLog::default();
    let mut out = Vec::new();
    for piece in units(text).chunks(chunk.max(1)) {
        stage.feed(&list, Options::default(), &mut log, piece, &mut out);
    }
    stage.flush(&list, &mut log, &mut out);
    let spans = log.spans().map(String::from_utf16_lossy).collect();
    let calls = (0..log.len())
        .flat_map(|index| log.calls_of(index).to_vec())
        .map(|call| {
            let (name, offered) = match call.tool {
                CalledTool::Offered(index) => (tools[index].to_owned(), true),
                CalledTool::Unoffered(name) => (String::from_utf16_lossy(&name), false),
            };
            let input = match call.input {
                Ok(value) => value.to_string(),
                Err(raw) => format!("raw {:?}", String::from_utf16_lossy(&raw)),
            };
            (name, offered, input)
        })
        .collect();
    (String::from_utf16_lossy(&out), spans, calls)
}

#[test]
fn strips_a_call_to_a_tool_not_on_offer_in_unmistakable_markup() {
    // (leak, the tool it names, its input)
    let cases = [
        ("<tool_call>\n{\"name\": \"delete_file\", \"arguments\": {\"path\": \"/tmp\"}}\n</tool_call>", "delete_file", r#"{"path":"/tmp"}"#),
        ("<|tool_calls_section_begin|><|tool_call_begin|>functions.web.search:0<|tool_call_argument_begin|>{\"q\": \"x\"}<|tool_call_end|><|tool_calls_section_end|>", "web.search", r#"{"q":"x"}"#),
        ("[TOOL_CALLS]send_mail[ARGS]{\"to\": \"a@b.c\"}", "send_mail", r#"{"to":"a@b.c"}"#),
        ("<function=run_shell>\n<parameter=command>\nls -la\n</parameter>\n</function>", "run_shell", r#"{"command":"ls -la"}"#),
        ("<tool_call>\n<function=run_shell>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>", "run_shell", r#"{"command":"ls"}"#),
        ("<function_calls>\n<invoke name=\"toolbox.web.answer\">\n<parameter name=\"query\">capital of France</parameter>\n</invoke>\n</function_calls>", "toolbox.web.answer", r#"{"query":"capital of France"}"#),
        ("<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"Bash\">\n<｜DSML｜parameter name=\"command\" string=\"true\">ls</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>", "Bash", r#"{"command":"ls"}"#),
        ("<tool_call>{\"type\": \"function\", \"function\": {\"name\": \"create\", \"arguments\": \"{\\\"title\\\": \\\"t\\\"}\"}}</tool_call>", "create", r#"{"title":"t"}"#),
        ("```tool_call\n{\"name\": \"make_thing\", \"arguments\": {}}\n```", "make_thing", "{}"),
    ];
    for (leak, name, input) in cases {
        let text = format!("Let me do that.\n{leak}\nDone.");
        for chunk in [1, 2, 7, 1000] {
            let (out, spans, calls) = run_calls(&["get_weather"], &text, chunk);
            assert_eq!(out, "Let me do that.\n\nDone.", "{leak} in chunks of {chunk}");
            assert_eq!(spans, vec![leak.to_owned()], "{leak} in chunks of {chunk}");
            assert_eq!(
                calls,
                vec![(name.to_owned(), false, input.to_owned())],
                "{leak} in chunks of {chunk}"
            );
        }
    }
    // A list may mix calls to offered tools and others; each is marked.
    let mixed = "<tool_call>[{\"name\": \"get_weather\", \"arguments\": {}}, {\"name\": \"rm_rf\", \"arguments\": {\"p\": 1}}]</tool_call>";
    let (out, _, calls) = run_calls(&["get_weather"], mixed, 3);
    assert_eq!(out, "");
    assert_eq!(
        calls,
        vec![
            ("get_weather".to_owned(), true, "{}".to_owned()),
            ("rm_rf".to_owned(), false, r#"{"p":1}"#.to_owned())
        ]
    );
}

#[test]
fn leaves_what_is_no_call_to_a_tool_not_on_offer() {
    let clean = [
        // No strong wrapper.
        "{\"name\": \"delete_file\", \"arguments\": {\"path\": \"/tmp\"}}",
        "<invoke name=\"delete_file\"><parameter name=\"path\">/tmp</parameter></invoke>",
        "functions.delete_file:0 {\"path\": \"/tmp\"}",
        "delete_file[ARGS]{\"path\": \"/tmp\"}",
        // A strong wrapper, but no call's body: a definition, a payload, a name alone, a title.
        "<tool_call>{\"name\": \"delete_file\", \"description\": \"Deletes\", \"parameters\": {\"type\": \"object\"}}</tool_call>",
        "<tool_call>{\"name\": \"delete_file\", \"parameters\": {\"type\": \"object\", \"properties\": {}}}</tool_call>",
        "<tool_call>{\"model\": \"gpt-4o\", \"tools\": [{\"name\": \"delete_file\", \"arguments\": {}}]}</tool_call>",
        "<tool_call>{\"name\": \"delete_file\"}</tool_call>",
        "<tool_call>{\"name\": \"delete_file\", \"arguments\": \"not json\"}</tool_call>",
        "<tool_call><invoke name=\"x\" partnerLink=\"p\"><parameter name=\"a\">v</parameter></invoke></tool_call>",
        "<tool_call><thing>delete_file</thing></tool_call>",
        // `<tag=NAME>` with element arguments, or no arguments.
        "<function=delete_file>\n<path>/tmp</path>\n</function>",
        "<function=delete_file></function>",
        // Code.
        "```xml\n<tool_call>\n{\"name\": \"delete_file\", \"arguments\": {}}\n</tool_call>\n```",
        "```json\n{\"name\": \"delete_file\", \"arguments\": {}}\n```",
        "The model wrote `<tool_call>{\"name\": \"delete_file\", \"arguments\": {}}</tool_call>` there.",
        "Kimi writes `<|tool_call_begin|>functions.delete_file:0<|tool_call_argument_begin|>{}<|tool_call_end|>`.",
    ];
    unchanged_with_get_weather(&clean);
}

#[test]
fn strips_the_residue_of_a_call() {
    // (text, output, spans, calls)
    let cases: [(&str, &str, &[&str], &[(&str, bool, &str)]); 10] = [
        // An empty wrapper before and after a call.
        ("A\n<tool_calls>\n</tool_calls>\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call>\nB", "A\n\nB",
            &["<tool_calls>\n</tool_calls>\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call>"], &[("get_weather", true, "{}")]),
        ("A <invoke name=\"get_weather\">{\"city\": \"x\"}</invoke> <function_calls></function_calls> B", "A  B",
            &["<invoke name=\"get_weather\">{\"city\": \"x\"}</invoke> <function_calls></function_calls>"], &[("get_weather", true, r#"{"city":"x"}"#)]),
        // Closers of a call whose opener the stream never showed, before and after one.
        ("A\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\nB", "A\n\nB",
            &["</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"], &[("get_weather", true, r#"{"city":"Paris"}"#)]),
        ("A\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</parameter>\n</function>\n</tool_call>\nB", "A\n\nB",
            &["<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</parameter>\n</function>\n</tool_call>"], &[("get_weather", true, r#"{"city":"Paris"}"#)]),
        // Parameter tags whose head was lost: no call to report.
        ("A\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\nB", "A\n\nB",
            &["<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"], &[]),
        // A call whose closers never came: to a blank line, a wrapper's closer, the end.
        ("A\n<function=get_weather>\n<parameter=city>\nParis\n\nMore prose.", "A\n\n\nMore prose.",
            &["<function=get_weather>\n<parameter=city>\nParis"], &[("get_weather", true, r#"{"city":"Paris"}"#)]),
        ("A\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</tool_call>\nB", "A\n\nB",
            &["<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</tool_call>"], &[("get_weather", true, r#"{"city":"Paris"}"#)]),
        ("A\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n<parameter=days>\n3\n</tool_call>\nB", "A\n\nB",
            &["<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n<parameter=days>\n3\n</tool_call>"], &[("get_weather", true, r#"{"city":"Paris","days":3}"#)]),
        // The end may have cut the value: the call carries its raw text.
        ("A\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n<parameter name=\"days\">3", "A\n",
            &["<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n<parameter name=\"days\">3"],
            &[("get_weather", true, "raw \"\\n<parameter name=\\\"city\\\">Paris</parameter>\\n<parameter name=\\\"days\\\">3\"")]),
        ("<function=make_thing>\n<parameter=x>\n1\n\nThen prose.", "\n\nThen prose.", &["<function=make_thing>\n<parameter=x>\n1"], &[("make_thing", false, r#"{"x":1}"#)]),
    ];
    for (text, expected, leaks, called) in cases {
        for chunk in [1, 2, 5, 1000] {
            let (out, spans, calls) = run_calls(&["get_weather"], text, chunk);
            assert_eq!(out, expected, "{text:?} in chunks of {chunk}");
            assert_eq!(spans, leaks, "{text:?} in chunks of {chunk}");
            let called: Vec<_> = called.iter().map(|&(n, o, i)| (n.to_owned(), o, i.to_owned())).collect();
            assert_eq!(calls, called, "{text:?} in chunks of {chunk}");
        }
    }
}

#[test]
fn leaves_closers_and_parameter_tags_that_no_leak_left() {
    let clean = [
        "<config>\n  <parameter name=\"city\">Paris</parameter>\n</config>",
        "Close it with </parameter>, then </function>.",
        "</parameter>\n</function>\n</tool_call>",
        "<function>open</function> takes <parameter>flags</parameter></paramdef>",
        "<invoke name=\"get_weather\" partnerLink=\"p\"><parameter name=\"a\">v</parameter></invoke>",
        "<tool_calls>\n</tool_calls>",
        "<parameter name=\"city\">Paris</parameter>\n</function>\n</tool_call>",
        "<parameter=city>Paris</parameter> is how Qwen3-Coder writes an argument.",
        "<function=get_weather> is how it names the tool, and <city>Paris</city> an argument.",
        "<select name=\"get_weather\"><option>Paris",
    ];
    unchanged_with_get_weather(&clean);
}

#[test]
fn the_end_takes_a_cut_off_call_or_special_token_under_either_policy() {
    let cut = [
        ("Sure. <|tool_call", "Sure. "),
        ("Sure. <|tool_calls_sect", "Sure. "),
        ("Sure. <｜tool▁calls", "Sure. "),
        ("Sure.\n<|im_end|", "Sure.\n"),
        ("Sure. <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Pa", "Sure. "),
        ("Sure. <|tool_call_begin|>functions.get_weather:0 {\"city\"", "Sure. "),
        ("Sure. <tool_call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call><|im_e", "Sure. "),
        ("Sure. <tool_call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call>\n</tool_ca", "Sure. "),
        // A call's opening tag the end cut off before its head, at a line's start.
        ("<tool_call>", ""),
        ("Let me check.\n<tool_call>\n", "Let me check.\n"),
        ("Let me check.\n  <function", "Let me check.\n  "),
        ("Checking.\n<function_calls>", "Checking.\n"),
        ("Checking.\n<minimax:tool_c", "Checking.\n"),
        ("Checking.\n<TOOLCALL>", "Checking.\n"),
    ];
    for (text, expected) in cut {
        for chunk in [1, 4, 1000] {
            for options in [Options::default(), drop_policy()] {
                let (out, spans) = run_with(&["get_weather"], text, chunk, options);
                assert_eq!(out, expected, "{text:?} in chunks of {chunk}");
                assert_eq!(spans.concat(), &text[expected.len()..], "{text:?} in chunks of {chunk}");
            }
        }
    }
    let kept = [
        "The answer was cut mid-wo",
        "a <",
        "a <|",
        "In a <| b, the bar is",
        "a <| b",
        "<div",
        "<div class=\"x",
        "Ask get_weather",
        "{\"tool\": \"get_weather\", \"x\": 1",
        "x <|a",
        "Use `<|tool_call",
        "```\n<|tool_call",
        // Not at a line's start, not a call's wrapper, or more after it.
        "The model writes <tool_call>",
        "<toolbar>",
        "<fun",
        "<function_name>",
        "<tool_call> and then",
        "    <tool_call>",
        "`<tool_call>`",
        "<tool_call/>",
    ];
    for text in kept {
        for chunk in [1, 4, 1000] {
            for options in [Options::default(), drop_policy()] {
                let (out, spans) = run_with(&["get_weather"], text, chunk, options);
                assert_eq!(out, text, "{text:?} in chunks of {chunk}");
                assert!(spans.is_empty(), "{text}: {spans:?}");
            }
        }
    }
}
