use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use super::{
    is_one_container, is_scanned_tool_call, is_tool_call, readable, string_units, unmarked, JsonScan, Step,
    MARK,
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
    ("object of every value", r#"{"s":"x","n":-1,"t":true,"f":false,"z":null,"o":{},"a":[]}"#, Step::Done),
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
        "[", "]", "{", "}", "\"", "\"a\"", "\"k\":", ",", ":", " ", "\n", "\t", "0", "1", "9", "-", ".", "e",
        "E", "+", "\\", "u", "00e9", "n", "t", "true", "false", "null", "x", "é", "\u{1}",
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
                assert!(!error.is_eof() || padded.is_err_and(|error| !error.is_eof()), "{prefix:?}: {error}");
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
    ("OpenAI parameters", r#"{"type":"function","function":{"name":"f","parameters":{"x":1}}}"#, None, true),
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
    ("OpenAI of another type", r#"{"type":"tool","function":{"name":"f","arguments":"{}"}}"#, None, false),
    ("OpenAI without a type", r#"{"function":{"name":"f","arguments":"{}"}}"#, None, false),
    ("OpenAI without a name", r#"{"type":"function","function":{"arguments":"{}"}}"#, None, false),
    (
        "OpenAI function string is no name",
        r#"{"type":"function","function":{"function":"f","arguments":"{}"}}"#,
        None,
        false,
    ),
    ("OpenAI number arguments", r#"{"type":"function","function":{"name":"f","arguments":1}}"#, None, false),
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
    ("nested tool_calls", r#"{"tool_calls":[{"tool_calls":[{"name":"f","arguments":{}}]}]}"#, None, false),
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
        ("a pair, one unit escaped", [units(r#""\ud83c"#), vec![0xDF24], units("\"")].concat(), units("🌤")),
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
    let pool: Vec<u16> =
        [0x61, 0x22, 0x5C, 0x0A, 0xE9, 0xD800, 0xDBFF, 0xDB80, 0xDC00, 0xDFFD, 0xD83C, 0xDF24, 0xFFFD, 0x75]
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
