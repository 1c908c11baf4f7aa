//! The reading of a served result, as cases: agentfootprint's
//! `evidence-served-json.test.ts` (its `readResult`, `leadingJsonValues` and
//! `jsonPrefixOf` cases, read through what the index is handed), and the
//! corners of `JSON.parse` the walk depends on.

use super::*;
use crate::checks::text::js_string::units;

/// What `read_served` hands out, as text: `s:` a string value, `a:` a key,
/// number or boolean, `t:` text.
fn pieces(text: &str) -> Vec<String> {
    pieces_of(&units(text))
}

fn pieces_of(text: &[u16]) -> Vec<String> {
    let mut seen = Vec::new();
    read_served(text, &mut |piece| {
        seen.push(match piece {
            Piece::String(units) => format!("s:{}", String::from_utf16_lossy(units)),
            Piece::Atom(units) => format!("a:{}", String::from_utf16_lossy(units)),
            Piece::Text(units) => format!("t:{}", String::from_utf16_lossy(units)),
        })
    });
    seen
}

const NOTE: &str = "\n\n[identical call: 'list_hosts' has now returned exactly this result 2 times this turn, for exactly these arguments.]";

#[test]
fn whole_json_is_walked_keys_and_leaves() {
    assert_eq!(pieces(r#"{"id":4417,"up":true}"#), ["a:id", "a:4417", "a:up", "a:true"]);
    assert_eq!(
        pieces(r#"  [{"host":"srv-a","ratio":1.50,"x":null,"big":1e21,"tiny":-0.0000001}]  "#),
        ["a:host", "s:srv-a", "a:ratio", "a:1.5", "a:x", "a:big", "a:1e+21", "a:tiny", "a:-1e-7"]
    );
}

#[test]
fn json_then_a_note_reads_the_value_then_the_note_as_text() {
    assert_eq!(
        pieces(&format!(r#"{{"id":4417}}{NOTE}"#)),
        ["a:id".to_string(), "a:4417".to_string(), format!("t:{}", NOTE.trim())]
    );
    // Seeded property of the reference: a value with a note after it reads as
    // that value plus the note.
    assert_eq!(pieces(r#"{"a":[1,"x"]} Step 1 of 2 done."#), ["a:a", "a:1", "s:x", "t:Step 1 of 2 done."]);
}

#[test]
fn several_blocks_then_one_cut_short() {
    assert_eq!(pieces("{\"id\":1}\n{\"id\":2}\n[3]"), ["a:id", "a:1", "a:id", "a:2", "a:3"]);
    assert_eq!(pieces("{\"id\":1}\n{\"id\":2,\"name\":\"b"), ["a:id", "a:1", "s:id", "s:2", "s:name"]);
    assert_eq!(
        pieces("{\"id\":1}\n{\"id\":2,\"msg\":\"link down on fc1/3 sin"),
        ["a:id", "a:1", "s:id", "s:2", "s:msg", "t:link down on fc1/3"]
    );
}

#[test]
fn json_cut_inside_a_string_gives_its_whole_words_as_text() {
    assert_eq!(
        pieces(r#"{"id":4417,"msg":"disk full on host-7 and mo"#),
        ["s:id", "s:4417", "s:msg", "t:disk full on host-7 and"]
    );
    assert_eq!(pieces(r#"{"a \"quoted\" key na"#), [r#"t:a "quoted" key"#]);
    assert_eq!(pieces(r#"["port fc1/3 down "#), ["t:port fc1/3 down"]);
}

#[test]
fn the_token_a_cut_falls_inside_is_never_a_leaf() {
    assert_eq!(
        pieces(r#"{"hosts":[{"id":4417,"up":true,"ratio":1.50,"x":null},{"id":22"#),
        ["s:hosts", "s:id", "s:4417", "s:up", "s:true", "s:ratio", "s:1.5", "s:x", "s:id"]
    );
    assert_eq!(pieces(r#"["a\"b","\u0041", -0.0e1"#), ["s:a\"b", "s:A"]);
    assert_eq!(pieces(r#"{"id":4417,"name":"srv-44"#), ["s:id", "s:4417", "s:name"]);
    assert_eq!(pieces(r#"{"up":tr"#), ["s:up"]);
    assert_eq!(pieces("[12, 34"), ["s:12"]);
}

#[test]
fn no_words_when_no_space_is_left_or_the_part_is_no_json_string() {
    assert_eq!(pieces(r#"{"msg":"srv-4417,srv-22"#), ["s:msg"]);
    assert_eq!(pieces(r#"{"msg":" host"#), ["s:msg"]);
    assert_eq!(pieces(r#"{"msg":"a\ b"#), ["s:msg"]);
}

#[test]
fn what_is_not_json_cut_short_is_text() {
    for text in [
        r#"{"a":1,}"#,
        "[INFO] 21:00:00 up",
        "{level=info",
        r#"{"a":[1}"#,
        "plain",
        "port 8080 open",
        "[INFO] up",
        "42",
        "\"quoted\"",
    ] {
        assert_eq!(pieces(text), [format!("t:{text}")], "{text}");
    }
}

#[test]
fn a_capped_result_reads_its_head_as_a_result_of_its_own() {
    let head = r#"{"hosts":[{"id":4417,"up":true},{"id":22"#;
    let marker = format!(
        r#"{{"truncated":true,"reason":"over the cap","head":{}}}"#,
        serde_json::to_string(head).unwrap()
    );
    let mut expected: Vec<String> =
        ["a:truncated", "a:true", "a:reason", "s:over the cap", "a:head"].map(String::from).to_vec();
    expected.push(format!("s:{head}"));
    expected.extend(["s:hosts", "s:id", "s:4417", "s:up", "s:true", "s:id"].map(String::from));
    assert_eq!(pieces(&marker), expected);
    // Not a capped result: `truncated` is not `true`, or `head` no string.
    assert_eq!(pieces(r#"{"truncated":"yes","head":"[1,2"}"#).len(), 4);
    assert_eq!(pieces(r#"{"truncated":true,"head":7}"#).len(), 4);
}

#[test]
fn a_repeated_key_keeps_only_its_last_value_as_json_parse_does() {
    assert_eq!(
        pieces(r#"{"a":"first","b":1,"a":{"c":"last"}}"#),
        ["a:a", "a:b", "a:1", "a:a", "a:c", "s:last"]
    );
}

#[test]
fn escapes_are_undone_to_the_code_unit() {
    let read = pieces_of(&units(r#"{"k":"caf\u00e9 \ud83d\ude00 \ud800 \n\t\/"}"#));
    let mut expected = units("caf\u{e9} \u{1F600} ");
    expected.push(0xD800);
    expected.extend(units(" \n\t/"));
    assert_eq!(read, ["a:k".to_string(), format!("s:{}", String::from_utf16_lossy(&expected))]);
    // A raw control character or an unknown escape is no JSON: text.
    assert_eq!(pieces("{\"k\":\"a\u{1}b\"}").len(), 1);
    assert_eq!(pieces(r#"{"k":"\x41"}"#).len(), 1);
}

#[test]
fn numbers_are_spelt_as_javascript_spells_them() {
    for (n, spelt) in [
        (0.0, "0"),
        (-0.0, "0"),
        (1.0, "1"),
        (-1.5, "-1.5"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (123456789012345680000.0, "123456789012345680000"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1.2345e-7, "1.2345e-7"),
        (0.1 + 0.2, "0.30000000000000004"),
        (5e-324, "5e-324"),
        (f64::MAX, "1.7976931348623157e+308"),
        (f64::INFINITY, "Infinity"),
        (f64::NEG_INFINITY, "-Infinity"),
        (f64::NAN, "NaN"),
        (9007199254740993.0, "9007199254740992"),
    ] {
        assert_eq!(String::from_utf16(&js_number_string(n)).unwrap(), spelt, "{n}");
    }
    assert_eq!(
        pieces("[1e400, 12345678901234567890, 0.1e1]"),
        ["a:Infinity", "a:12345678901234567000", "a:1"]
    );
    // JSON's number grammar, not JavaScript's: these are refused.
    for text in ["[01]", "[1.]", "[.5]", "[+1]", "[1e]", "[-]", "[0x10]", "[Infinity]"] {
        assert_eq!(pieces(text), [format!("t:{text}")], "{text}");
    }
}

#[test]
fn deep_nesting_costs_heap_not_stack() {
    let depth = 200_000;
    let text = format!("{}\"deep\"{}", "[".repeat(depth), "]".repeat(depth));
    assert_eq!(pieces(&text), ["s:deep"]);
    let cut = format!("{}\"deep\",", "{\"k\":".repeat(depth));
    assert_eq!(pieces(&cut).len(), depth + 1);
}
