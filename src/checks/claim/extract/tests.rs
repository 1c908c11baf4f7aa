use super::*;
use crate::checks::claim::normalize::tokenize;
use crate::checks::text::js_string::units;

fn rules(options: ValueOptions) -> ValueRules {
    ValueRules::new(options).unwrap()
}

fn values(answer: &str, rules: &ValueRules) -> Vec<(String, String, Option<String>)> {
    answer_values(&units(answer), rules)
        .into_iter()
        .map(|v| {
            (
                String::from_utf16(&v.value).unwrap(),
                String::from_utf16(rules.shape_name(&v.shape)).unwrap(),
                v.token.map(|t| String::from_utf16(&t).unwrap()),
            )
        })
        .collect()
}

fn shape(name: &str, source: &str, flags: &str) -> DeclaredShape {
    DeclaredShape { name: units(name), regex: RegexSource::with_js_flags(source, flags).unwrap() }
}

#[test]
fn prose_is_prose() {
    let r = ValueRules::default();
    for token in [
        "three", "first", "healthy", "3", "24", "47", "892", "32g", "100mb", "47th", "2h", "48-port",
        "20/month", "24/7", "1/2", "12/34", "-14.8", "3.1", "po1", "a1",
    ] {
        assert_eq!(values(token, &r), vec![], "{token}");
    }
}

#[test]
fn data_is_data() {
    let r = ValueRules::default();
    for (token, value, shape, glued) in [
        ("0xef0101", "0xef0101", "identifier", None),
        ("fc1/3", "fc1/3", "identifier", None),
        ("21:00:00:24:ff:4a:12:03", "21:00:00:24:ff:4a:12:03", "identifier", None),
        ("UCSB-B200-M5", "ucsb-b200-m5", "identifier", None),
        ("7.0.3", "7.0.3", "identifier", None),
        ("08:15", "08:15", "identifier", None),
        ("41,200", "41200", "number", None),
        ("786432", "786432", "number", None),
        ("1204itw", "1204", "number", Some("1204itw")),
        ("41200iops/sec", "41200", "number", Some("41200iops/sec")),
        ("-0041200", "-41200", "number", None),
        ("12345678901234567890", "12345678901234567890", "number", None),
        ("1234abcdef", "1234abcdef", "identifier", None),
        ("1234-", "1234-", "identifier", None),
        ("123/45", "123/45", "identifier", None),
        ("1/234", "1/234", "identifier", None),
    ] {
        assert_eq!(values(token, &r), vec![(value.into(), shape.into(), glued.map(String::from))], "{token}");
    }
}

#[test]
fn distinct_in_first_appearance_order() {
    let r = ValueRules::default();
    let got = values("fc1/3 and 41,200 then FC1/3, 41200 and fc1/4", &r);
    let names: Vec<&str> = got.iter().map(|v| v.0.as_str()).collect();
    assert_eq!(names, ["fc1/3", "41200", "fc1/4"]);
}

/// Thousands of values, most repeated, past every size the table of seen
/// values grows through: the same list a plain set gives, in the same order.
#[test]
fn distinct_over_many_values_is_a_plain_set() {
    let r = ValueRules::default();
    let mut state = 0x2545_F491_u32;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    let mut answer = String::new();
    for _ in 0..20_000 {
        let value = next() % 3_000;
        let spelling = match next() % 4 {
            0 => format!("srv-{value}"),
            1 => format!("SRV-{value}."),
            2 => format!("{},{:03}", 10 + value / 1000, value % 1000),
            _ => format!("{}", 10_000 + value),
        };
        answer.push_str(&spelling);
        answer.push_str(" and ");
    }
    let mut seen = HashSet::new();
    let mut expected = Vec::new();
    tokenize(&units(&answer), |token| {
        if let Some(value) = r.classify(token, None) {
            if seen.insert(value.value.clone()) {
                expected.push(value);
            }
        }
    });
    assert!(expected.len() > 4_000, "{} values", expected.len());
    assert_eq!(answer_values(&units(&answer), &r), expected);
}

#[test]
fn shapes_first_anchored_and_flags() {
    let r = rules(ValueOptions {
        shapes: vec![shape("ticket", "[a-z]{3}-[a-z]{4}", ""), shape("four", r"\d{4}", "g")],
        ..Default::default()
    });
    assert_eq!(values("Filed as ops-open.", &r), vec![("ops-open".into(), "ticket".into(), None)]);
    assert_eq!(values("41200 and 4120", &r)[0].1, "number");
    assert_eq!(values("4120", &r)[0].1, "four");
    let either = |source: &str, flags: &str| {
        rules(ValueOptions { shapes: vec![shape("s", source, flags)], ..Default::default() })
    };
    assert_eq!(values("ab", &either("a|ab", "")), vec![("ab".into(), "s".into(), None)]);
    assert_eq!(values("HOST", &either("HOST", "i")).len(), 1);
    assert_eq!(values("HOST", &either("HOST", "")).len(), 0, "tokens are lower-case");
    assert_eq!(values("x_1", &either(r"\w+", "")).len(), 1);
    assert_eq!(values("alpha", &either("a*l?p?h?a*", "")).len(), 1, "a pattern that can match empty is kept");
}

#[test]
fn exempt_strings_and_patterns() {
    let r = rules(ValueOptions {
        exempt: vec![
            Exempt::Value(units("0xEF0101")),
            Exempt::Pattern(RegexSource::with_js_flags(r"^build-\d+$", "").unwrap()),
        ],
        ..Default::default()
    });
    assert_eq!(
        values("FCID 0xef0101 (ef0101) on build-8841, fc1/3.", &r),
        vec![("fc1/3".into(), "identifier".into(), None)]
    );
}

#[test]
fn figures_under_min_digits() {
    let answer = "CLUSTER-A01 is 53.2% used, with 6.3 TB free; 24.8TB more and 3 issues.";
    assert_eq!(
        values(answer, &ValueRules::default()),
        vec![("cluster-a01".into(), "identifier".into(), None)]
    );
    let on = rules(ValueOptions { figures: true, ..Default::default() });
    assert_eq!(
        values(answer, &on),
        vec![
            ("cluster-a01".into(), "identifier".into(), None),
            ("53.2".into(), "figure".into(), None),
            ("6.3".into(), "figure".into(), None),
            ("24.8".into(), "figure".into(), Some("24.8tb".into())),
        ]
    );
}

#[test]
fn refused_options() {
    let err = |options: ValueOptions| ValueRules::new(options).unwrap_err().at;
    assert_eq!(err(ValueOptions { min_digits: 0.0, ..Default::default() }), "minDigits");
    assert_eq!(err(ValueOptions { min_digits: 2.5, ..Default::default() }), "minDigits");
    assert_eq!(err(ValueOptions { min_digits: f64::INFINITY, ..Default::default() }), "minDigits");
    assert_eq!(
        err(ValueOptions { shapes: vec![shape(" \u{a0}", "x", "")], ..Default::default() }),
        "shapes[0].name"
    );
    assert_eq!(
        err(ValueOptions { shapes: vec![shape("a", "x", ""), shape(" a ", "y", "")], ..Default::default() }),
        "shapes[1].name"
    );
    assert_eq!(
        err(ValueOptions { shapes: vec![shape("a", "x(?=y)", "")], ..Default::default() }),
        "shapes[0].match"
    );
    let bad =
        ValueOptions { exempt: vec![Exempt::Pattern(RegexSource::new(r"(a)\1"))], ..Default::default() };
    assert_eq!(err(bad), "exempt[0]");
}

#[test]
fn candidate_forms_widen_the_lookup_only() {
    let r = ValueRules::default();
    let found = answer_values(&units("0xef0101 at 1007us and 41200iops"), &r);
    let forms: Vec<Vec<String>> = found
        .iter()
        .map(|v| candidate_forms(v).iter().map(|f| String::from_utf16(f).unwrap()).collect())
        .collect();
    assert_eq!(
        forms,
        vec![
            vec!["0xef0101".to_string(), "ef0101".into()],
            vec!["1007".into(), "1007us".into()],
            vec!["41200".into(), "41200iops".into()],
        ]
    );
}

#[test]
fn odd_text_around_values() {
    let r = ValueRules::default();
    // Astral characters, lone surrogates, non-ASCII digits and spaces
    // separate tokens; they are never part of one.
    let answer = "\u{1F600}fc1/3\u{1F600} ?x\u{200B}41,200 ٤١٢٠٠ 41\u{a0}200 41\u{2009}200";
    let mut text = units(answer);
    text[units("\u{1F600}fc1/3\u{1F600} ").len()] = 0xD800;
    let got: Vec<String> =
        answer_values(&text, &r).iter().map(|v| String::from_utf16(&v.value).unwrap()).collect();
    assert_eq!(got, ["fc1/3", "41200"]);
}
