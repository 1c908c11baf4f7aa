use super::*;
use crate::checks::text::js_string::units;
use crate::checks::walk::tests::{list, record, s, Arg, Plain, TooMany};

fn text(units: &[u16]) -> String {
    String::from_utf16(units).expect("well-formed test text")
}

fn produced(tool: &str, body: &str) -> Produced {
    Produced { tool_name: units(tool), text: units(body) }
}

fn field_case_args() -> Arg {
    record(vec![("wwpn", s("20:00:00:25:b5:aa:00:1f"))])
}

fn inventory() -> Vec<Produced> {
    vec![produced(
        "fabric_inventory",
        "devices: 20:00:00:25:b5:aa:00:1f (host-a), 20:00:00:25:b5:aa:00:2c (host-b)",
    )]
}

/// Runs the check on a call to `port_for_device` grounded by `fabric_inventory`.
fn check(args: Arg, reading: Option<Reading>, results: Vec<Produced>) -> Encounter {
    check_from(args, reading, results, &["fabric_inventory"])
}

fn check_from(args: Arg, reading: Option<Reading>, results: Vec<Produced>, from: &[&str]) -> Encounter {
    let parts = CallParts {
        tool_name: units("port_for_device"),
        tool_call_id: units("call-2"),
        args,
        arguments_from: from.iter().map(|t| units(t)).collect(),
    };
    empty_lookup_of(&mut Plain::default(), reading, 2.0, |_| Ok((parts, results))).unwrap()
}

const EMPTY_ROWSET: Option<Reading> = Some(Reading { shape: Shape::Rowset, empty: true, rows: Some(0) });

#[test]
fn read_lookup_result_rows() {
    let cases: &[(&str, bool, Option<u32>, Option<Reading>)] = &[
        (
            "absence, whatever the value",
            true,
            Some(3),
            Some(Reading { shape: Shape::Absence, empty: true, rows: None }),
        ),
        (
            "absence of a non-array",
            true,
            None,
            Some(Reading { shape: Shape::Absence, empty: true, rows: None }),
        ),
        ("empty array", false, Some(0), Some(Reading { shape: Shape::Rowset, empty: true, rows: Some(0) })),
        ("one row", false, Some(1), Some(Reading { shape: Shape::Rowset, empty: false, rows: Some(1) })),
        ("anything else", false, None, None),
    ];
    for (name, absence, length, expected) in cases {
        assert_eq!(read_lookup_result(*absence, *length), *expected, "{name}");
    }
}

#[test]
fn dispositions() {
    let one_row = Some(Reading { shape: Shape::Rowset, empty: false, rows: Some(1) });
    let absence = read_lookup_result(true, None);
    let cases: Vec<(&str, Arg, Option<Reading>, Vec<Produced>, Disposition, usize)> = vec![
        ("the field case", field_case_args(), EMPTY_ROWSET, inventory(), Disposition::CheckedFail, 1),
        ("declared absence", field_case_args(), absence, inventory(), Disposition::CheckedFail, 1),
        ("unreadable result", field_case_args(), None, inventory(), Disposition::NotApplicable, 0),
        ("found rows", field_case_args(), one_row, inventory(), Disposition::CheckedPass, 0),
        (
            "only an undeclared producer",
            field_case_args(),
            EMPTY_ROWSET,
            vec![produced("some_other_tool", "20:00:00:25:b5:aa:00:1f")],
            Disposition::Unreachable,
            0,
        ),
        ("no results at all", field_case_args(), EMPTY_ROWSET, vec![], Disposition::Unreachable, 0),
        (
            "declared producer served only empty text",
            field_case_args(),
            EMPTY_ROWSET,
            vec![produced("fabric_inventory", "")],
            Disposition::Unreachable,
            0,
        ),
        (
            "under the fence",
            record(vec![("id", s("a1"))]),
            EMPTY_ROWSET,
            inventory(),
            Disposition::CheckedPass,
            0,
        ),
        (
            "not a string",
            record(vec![("port", Arg::Num)]),
            EMPTY_ROWSET,
            inventory(),
            Disposition::CheckedPass,
            0,
        ),
        (
            "not in the ground",
            record(vec![("wwpn", s("ff:ff:ff:ff"))]),
            EMPTY_ROWSET,
            inventory(),
            Disposition::CheckedPass,
            0,
        ),
        ("no arguments", record(vec![]), EMPTY_ROWSET, inventory(), Disposition::CheckedPass, 0),
        (
            "two grounded leaves, two findings",
            record(vec![("a", s("host-a")), ("b", list(vec![s("HOST-B")]))]),
            EMPTY_ROWSET,
            inventory(),
            Disposition::CheckedFail,
            2,
        ),
    ];
    for (name, args, reading, results, disposition, count) in cases {
        let encounter = check(args, reading, results);
        assert_eq!(encounter.disposition, disposition, "{name}");
        assert_eq!(encounter.findings.len(), count, "{name}");
    }
}

#[test]
fn the_fence_trims_and_counts_utf16_units() {
    let ground = |body: &str| vec![produced("fabric_inventory", body)];
    let cases: Vec<(&str, &str, &str, bool)> = vec![
        ("four units are judged", "abcd", "xx abcd xx", true),
        ("three units are not", "abc", "xx abc xx", false),
        ("trimmed to three", "  abc \n", "xx abc xx", false),
        ("no-break spaces trim", "\u{a0}abcd\u{feff}", "abcd", true),
        ("NEL does not trim, so it is part of the needle", "\u{85}abcd", "abcd", false),
        ("two astral characters are four units", "😀😀", "a😀😀b", true),
        ("case folds on both sides", "HOST-A", "Host-A", true),
        ("dotted capital I lowers to i + combining dot", "İSTANBUL", "i\u{307}stanbul", true),
        ("plain i does not match the dotted form", "ISTANBUL", "i\u{307}stanbul", false),
        ("final sigma differs by context", "ΟΔΟΣ", "οδοσα", false),
        ("final sigma matches a final sigma", "ΟΔΟΣ", "η οδος", true),
    ];
    for (name, leaf, body, grounded) in cases {
        let encounter = check(record(vec![("v", s(leaf))]), EMPTY_ROWSET, ground(body));
        assert_eq!(encounter.findings.len() == 1, grounded, "{name}");
    }
}

#[test]
fn the_first_declared_ground_in_produced_order_wins() {
    let results = vec![
        produced("fabric_inventory_old", "host-a is here"),
        produced("cmdb", "HOST-A"),
        produced("fabric_inventory", "host-a"),
        produced("cmdb", "host-a again"),
    ];
    let encounter =
        check_from(record(vec![("h", s("host-a"))]), EMPTY_ROWSET, results, &["fabric_inventory", "cmdb"]);
    assert_eq!(text(&encounter.findings[0].subjects[1].id), "cmdb");
}

#[test]
fn the_finding_has_agentfootprint_s_shape() {
    let encounter = check(field_case_args(), EMPTY_ROWSET, inventory());
    let finding = &encounter.findings[0];
    let port = SubjectRef { kind: "tool", id: units("port_for_device") };
    let inventory = SubjectRef { kind: "tool", id: units("fabric_inventory") };
    assert_eq!(finding.subjects, [port.clone(), inventory.clone()]);
    assert_eq!(text(finding.predicate.as_deref().unwrap()), "wwpn");
    assert_eq!(finding.epoch, 2.0);
    let subjects: Vec<_> = finding.witnesses.iter().map(|w| w.subject.clone()).collect();
    assert_eq!(subjects, [port.clone(), inventory, port]);
    for witness in &finding.witnesses {
        assert_eq!(text(&witness.predicate), "wwpn");
        assert_eq!(witness.epoch, 2.0);
    }
    assert_eq!(text(finding.witnesses[0].value.as_text()), "20:00:00:25:b5:aa:00:1f");
    assert!(text(&finding.witnesses[0].provenance).contains("call-2"));
    assert!(text(finding.witnesses[1].value.as_text()).contains("earlier in this run"));
    assert!(text(&finding.witnesses[1].provenance).contains("argumentsFrom"));
    assert!(text(finding.witnesses[2].value.as_text()).contains("found nothing"));
    assert!(text(finding.witnesses[2].value.as_text()).contains("a rowset with zero rows"));
    assert!(text(&finding.witnesses[2].provenance).contains("call-2"));

    let message = text(&finding.message);
    for fact in [
        "port_for_device",
        "fabric_inventory",
        "wwpn",
        "\"20:00:00:25:b5:aa:00:1f\"",
        "call-2",
        "a rowset with zero rows",
        EMPTY_LOOKUP_CEILING,
        "Nothing here blocked the call",
    ] {
        assert!(message.contains(fact), "message lacks {fact:?}: {message}");
    }
}

#[test]
fn the_witness_keeps_the_value_as_chosen_and_the_message_clips_it() {
    let long = format!("  {}  ", "x".repeat(100));
    let results = vec![produced("fabric_inventory", &"x".repeat(200))];
    let encounter =
        check(record(vec![("filter", record(vec![("ids", list(vec![s(&long)]))]))]), EMPTY_ROWSET, results);
    let finding = &encounter.findings[0];
    assert_eq!(text(finding.predicate.as_deref().unwrap()), "filter.ids.0");
    assert_eq!(text(finding.witnesses[0].value.as_text()), long);
    let quoted = format!("\"{}…\"", "x".repeat(79));
    assert!(text(&finding.message).contains(&quoted));
}

#[test]
fn an_absence_is_named_as_such() {
    let encounter = check(field_case_args(), read_lookup_result(true, None), inventory());
    let finding = &encounter.findings[0];
    assert!(text(&finding.message).contains("a declared absence"));
    assert!(text(finding.witnesses[2].value.as_text()).contains("a declared absence"));
}

#[test]
fn the_ceiling_says_both_things() {
    assert!(EMPTY_LOOKUP_CEILING.contains("can be perfectly true"));
    assert!(EMPTY_LOOKUP_CEILING.contains("never a verdict"));
}

#[test]
fn nothing_past_the_reading_is_read_when_the_reading_decides() {
    for reading in [None, Some(Reading { shape: Shape::Rowset, empty: false, rows: Some(2) })] {
        let encounter = empty_lookup_of(&mut Plain::default(), reading, 0.0, |_| -> Result<_, TooMany> {
            panic!("the rest of the call was read")
        })
        .unwrap();
        assert!(encounter.findings.is_empty());
    }
}

#[test]
fn lone_surrogates_survive_into_the_finding() {
    let leaf = vec![0xD800, 0x61, 0x62, 0x63, 0x64];
    let results =
        vec![Produced { tool_name: units("fabric_inventory"), text: [units("x"), leaf.clone()].concat() }];
    let encounter = check(record(vec![("v", Arg::Str(leaf.clone()))]), EMPTY_ROWSET, results);
    let finding = &encounter.findings[0];
    assert_eq!(finding.witnesses[0].value.as_text(), leaf);
    assert!(finding.message.windows(leaf.len()).any(|w| w == leaf.as_slice()));
}

mod grounds_and_corpus {
    use super::*;
    use crate::checks::corpus::ProducedCorpus;
    use crate::checks::text::ground::{
        first_holders, narrow_lowered_into, ByteRanks, Grounding, Grounds, HeldText, Lowered, Needle, Quote,
    };

    fn needle(text: &str) -> Needle {
        Needle::of_leaf(&units(text)).expect("past the fence")
    }

    /// A held text, or one whose reading fails: a scan that reaches it
    /// ends in the error.
    enum Held {
        Text(&'static str),
        Unreadable,
    }

    impl HeldText<&'static str> for Held {
        fn read_into(&self, read: &mut Vec<u16>) -> Result<(), &'static str> {
            match self {
                Held::Text(text) => {
                    *read = units(text);
                    Ok(())
                }
                Held::Unreadable => Err("unreadable"),
            }
        }
    }

    #[test]
    fn a_held_ground_is_read_only_when_the_scan_reaches_it() {
        let mut grounds = Grounds::new();
        grounds.push(3, units("inventory"), Held::Text("Host-A rack 4"));
        grounds.push(7, units("cmdb"), Held::Unreadable);
        let (host_a, host_b) = (needle("host-a"), needle("host-b"));
        // Every needle is placed by the first ground: the second is never read.
        assert_eq!(first_holders(&[&host_a], &mut grounds), Ok(vec![Some(3)]));
        assert_eq!(Grounding::<&str>::producer(&grounds, 3), units("inventory"));
        // A needle the first ground lacks sends the scan on, into the error.
        assert_eq!(first_holders(&[&host_a, &host_b], &mut grounds), Err("unreadable"));
    }

    #[test]
    fn ascii_and_wide_texts_answer_alike() {
        let cases: &[(&str, &str, &str, bool)] = &[
            ("ascii in ascii", "Port FC1/7 ONLINE", "fc1/7", true),
            ("absent", "Port FC1/7 ONLINE", "fc1/8", false),
            ("a non-ascii needle is never in ascii text", "istanbul", "İSTANBUL", false),
            ("the Kelvin sign lowers to an ascii k", "kelvin", "\u{212A}ELVIN", true),
            ("wide text, ascii needle", "Ünïcode PORT-7", "port-7", true),
            ("wide text, wide needle", "x İSTANBUL", "i\u{307}stanbul", true),
        ];
        // Long enough to be sampled for byte ranks, and full of the bytes a
        // WWPN is made of.
        let filler = "{\"wwpn\":\"20:00:00:25:b5:0a:1b:2c\"} ".repeat(600);
        for (name, text, leaf, expected) in cases {
            let needle = needle(leaf);
            for text in [text.to_string(), format!("{filler}{text}")] {
                let lowered = Lowered::of_units(&units(&text));
                // The byte ranks only choose where the finder looks first.
                let sampled = ByteRanks::sample(lowered.as_ground());
                assert_eq!(sampled.is_some(), text.len() > 16 << 10 && text.is_ascii(), "{name}");
                assert_eq!(lowered.as_ground().contains(&needle.search(None)), *expected, "{name}");
                assert_eq!(
                    lowered.as_ground().contains(&needle.search(sampled.as_ref())),
                    *expected,
                    "{name}, ranked"
                );
            }
        }
        assert!(matches!(Lowered::of_units(&units("ABC")), Lowered::Ascii(_)));
        assert!(matches!(Lowered::of_units(&units("ÄBC")), Lowered::Wide(_)));
    }

    #[test]
    fn narrowing_lowers_ascii_and_flags_anything_else() {
        // Lengths on both sides of the 32-unit vector steps, and units on
        // both sides of every edge the narrowing tests: `A`/`Z` and their
        // neighbours, the end of ASCII, and wide units whose low byte is an
        // upper-case letter.
        let palette: [u16; 14] =
            [0x40, 0x41, 0x4d, 0x5a, 0x5b, 0x60, 0x61, 0x7a, 0x7f, 0x80, 0xff, 0x141, 0x15a, 0xffff];
        let mut r = Rng(7);
        for len in (0..200usize).chain([1000, 4099]) {
            for wide_at in [None, Some(0), Some(len / 2), Some(len.saturating_sub(1))] {
                let mut units: Vec<u16> = (0..len).map(|_| palette[r.below(9)]).collect();
                if let (Some(at), true) = (wide_at, len > 0) {
                    units[at] = palette[9 + r.below(5)];
                }
                let mut out = vec![std::mem::MaybeUninit::new(0u8); len];
                let ascii = narrow_lowered_into(&units, &mut out);
                assert_eq!(ascii, units.iter().all(|&unit| unit < 0x80), "length {len}, {wide_at:?}");
                if ascii {
                    // SAFETY: every byte was initialised above.
                    let bytes: Vec<u8> = out.iter().map(|byte| unsafe { byte.assume_init() }).collect();
                    let expected: Vec<u8> =
                        units.iter().map(|&unit| (unit as u8).to_ascii_lowercase()).collect();
                    assert_eq!(bytes, expected, "length {len}");
                }
            }
        }
    }

    #[test]
    fn the_fence_is_the_needle_s() {
        for (leaf, judged) in [
            ("abcd", true),
            (" abc ", false),
            ("😀😀", true),
            ("\u{85}abc", true),
            ("\u{a0}ab\u{feff}", false),
        ] {
            assert_eq!(Needle::of_leaf(&units(leaf)).is_some(), judged, "{leaf:?}");
        }
    }

    #[test]
    fn a_quote_is_offsets_into_the_leaf() {
        let leaf = units(&format!("  {}😀tail  ", "a".repeat(78)));
        let quote = Quote::of_leaf(&leaf);
        assert_eq!(quote, Quote { start: 2, end: 80, clipped: true });
        assert_eq!(quote.text(&leaf), units(&format!("{}…", "a".repeat(78))));
        let short = units(" abcd ");
        assert_eq!(Quote::of_leaf(&short), Quote { start: 1, end: 5, clipped: false });
    }

    #[test]
    fn prose_fills_slots_and_keeps_the_rest() {
        let value = units("{path}");
        let filled = fill("a {path} b {call}", |slot| if slot == "path" { &value } else { &[] });
        assert_eq!(text(&filled), "a {path} b ");
        for (name, template) in prose::TEMPLATES {
            assert!(!template.contains("{ceiling}") || name == "message");
        }
    }

    /// A tiny seeded generator, so a failing case can be replayed.
    struct Rng(u32);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 17;
            self.0 ^= self.0 << 5;
            self.0 as usize % n
        }
        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len())]
        }
    }

    #[test]
    fn a_corpus_judges_as_the_list_of_everything_pushed() {
        let mut r = Rng(20261129);
        let atoms =
            ["host", "HOST", "Σ", "ς", "İ", "i\u{307}", " ", "\u{a0}", "😀", "a", "-", "1", "\u{212A}"];
        let tools = ["inventory", "cmdb", "other"];
        let mut outcomes = std::collections::HashMap::new();
        for case in 0..300 {
            let word = |r: &mut Rng| (0..1 + r.below(5)).map(|_| r.pick(&atoms)).collect::<String>();
            let pool: Vec<String> = (0..4).map(|_| word(&mut r) + &word(&mut r)).collect();
            let produced: Vec<Produced> = (0..r.below(5))
                .map(|_| {
                    let body =
                        (0..r.below(3)).map(|_| pool[r.below(4)].clone()).collect::<Vec<_>>().join(" ");
                    produced(tools[r.below(3)], &body)
                })
                .collect();
            let leaves: Vec<(&str, Arg)> = ["a", "b", "c"]
                .iter()
                .map(|key| {
                    let mut leaf = if r.below(5) > 0 { pool[r.below(4)].clone() } else { word(&mut r) };
                    if r.below(3) == 0 {
                        leaf = leaf.to_uppercase();
                    }
                    (*key, s(&leaf))
                })
                .collect();
            let from: Vec<&str> = tools.iter().copied().filter(|_| r.below(4) > 0).collect();
            let args = record(leaves);

            let stateless = check_from(args.clone(), EMPTY_ROWSET, produced.clone(), &from);
            let mut corpus = ProducedCorpus::new();
            for result in &produced {
                corpus.push_units(&result.tool_name, &result.text);
            }
            assert_eq!(corpus.len(), produced.len());
            let parts = CallParts {
                tool_name: units("port_for_device"),
                tool_call_id: units("call-2"),
                args,
                arguments_from: from.iter().map(|t| units(t)).collect(),
            };
            let from_corpus = empty_lookup_with(&mut Plain::default(), EMPTY_ROWSET, 2.0, |_| {
                let grounds = corpus.grounds(&parts.arguments_from);
                Ok::<_, TooMany>((parts, grounds))
            })
            .unwrap();
            assert_eq!(from_corpus, stateless, "case {case}");
            *outcomes.entry(stateless.disposition.as_str()).or_insert(0) += 1;
        }
        for disposition in ["checked-fail", "checked-pass", "unreachable"] {
            assert!(outcomes.get(disposition).copied().unwrap_or(0) > 20, "{outcomes:?}");
        }
    }

    #[test]
    fn a_sketched_corpus_answers_as_the_stateless_check() {
        // Long JSON results (sketched), calls after each push that look up
        // an id from the newest result, one from an earlier result and one
        // no result holds: the corpus answers as the stateless check.
        let mut r = Rng(20261201);
        let mut corpora = vec![ProducedCorpus::new()];
        let mut results = Vec::new();
        let mut ids: Vec<Vec<String>> = Vec::new();
        let mut joins = 0;
        for step in 0..40 {
            let mine: Vec<String> = (0..20 + r.below(300))
                .map(|_| format!("20:00:00:25:B5:{:02X}:{:02X}:{:02X}", r.below(256), r.below(256), step))
                .collect();
            let body: String = mine
                .iter()
                .enumerate()
                .map(|(i, id)| format!("{{\"wwpn\":\"{id}\",\"host\":\"Host-Rack{i}-{step}\"}}\n"))
                .collect();
            let tool = ["inventory", "cmdb"][step % 2];
            results.push(produced(tool, &body));
            ids.push(mine);
            for corpus in &mut corpora {
                corpus.push_units(&units(tool), &units(&body));
            }
            let newest = &ids[step][r.below(ids[step].len())];
            let earlier = ids[r.below(step + 1)].clone();
            let earlier = &earlier[r.below(earlier.len())];
            let args = record(vec![
                ("wwpn", s(&newest.to_lowercase())),
                ("host", s(earlier)),
                ("query", s(&format!("c0:ff:ee:{step:04}:missing"))),
            ]);
            let from = ["inventory", "cmdb"];
            let stateless = check_from(args.clone(), EMPTY_ROWSET, results.clone(), &from);
            joins += stateless.findings.len();
            for corpus in &corpora {
                let parts = CallParts {
                    tool_name: units("port_for_device"),
                    tool_call_id: units("call-2"),
                    args: args.clone(),
                    arguments_from: from.iter().map(|t| units(t)).collect(),
                };
                let answer = empty_lookup_with(&mut Plain::default(), EMPTY_ROWSET, 2.0, |_| {
                    Ok::<_, TooMany>((parts, corpus.grounds(&from.map(units))))
                })
                .unwrap();
                assert_eq!(answer, stateless, "step {step}");
            }
        }
        assert_eq!(joins, 80, "the newest and the earlier id are found, the third value never");
    }

    #[test]
    fn a_corpus_keeps_one_byte_per_ascii_unit() {
        let mut corpus = ProducedCorpus::new();
        corpus.push_units(&units("inventory"), &units(&"A".repeat(10_000)));
        corpus.push_units(&units("inventory"), &units(&"Ä".repeat(10_000)));
        assert_eq!(corpus.text_bytes(), 30_000);
        // The ASCII text keeps a byte a unit, with its sketch of 2^14 bits
        // (the power of two at or above 10,000); the wide one keeps two
        // bytes a unit. The claim index holds the one form the ASCII text
        // is, two bytes a unit. The rest is records, names and the index's
        // record of its form.
        let fixed = 10_000 + 2_048 + 20_000 + 20_000;
        let bytes = corpus.heap_bytes();
        assert!((fixed..fixed + 768).contains(&bytes), "{bytes}");
        // The running count V8 is told agrees, give or take the records'
        // spare capacity.
        let external = corpus.external_bytes();
        assert!((fixed..fixed + 768).contains(&external), "{external}");
        corpus.clear();
        assert_eq!(corpus.external_bytes(), 0);
    }
}
