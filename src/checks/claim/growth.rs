//! The extractor's work grows linearly with the answer: counted, not
//! timed, as the filter's is (`src/filter/growth.rs`). Each row builds an
//! answer of one shape repeated `n` times, at 1, 4 and 16 times a base, and
//! asserts the work at 4x stays within 5 times the work at 1x and at 16x
//! within 20 times; quadratic work would be 16 and 256 times. The shapes
//! are the ones a scan with look-behind, optional groups and alternatives
//! could read again and again: long digit runs, runs of separators, numbers
//! whose unit never comes, one huge token, many declared shapes.

use super::extract::{answer_values_counted, DeclaredShape, Exempt, ValueOptions, ValueRules};
use super::Work;
use crate::checks::text::js_string::units;
use crate::filter::RegexSource;

struct Row {
    shape: &'static str,
    text: fn(usize) -> String,
}

const ROWS: &[Row] = &[
    Row { shape: "one run of digits", text: |n| "1".repeat(n * 64) },
    Row { shape: "digits and thousands commas", text: |n| "1".to_owned() + &",234".repeat(n * 16) },
    Row { shape: "commas before too many digits", text: |n| "1,2345".repeat(n * 8) },
    Row { shape: "signs and digits", text: |n| " -1-1-1-1".repeat(n * 8) },
    Row { shape: "numbers whose unit never comes", text: |n| "12.5 t".repeat(n * 8) },
    Row { shape: "a decimal point with no digits", text: |n| "1.".repeat(n * 32) },
    Row { shape: "figures", text: |n| "1,234.5 TB/s 7% 8 ms ".repeat(n * 2) },
    Row { shape: "glued units", text: |n| "41200iops/sec 32g 48-port ".repeat(n * 2) },
    Row { shape: "one huge identifier", text: |n| "ab1-".repeat(n * 16) },
    Row { shape: "list commas", text: |n| ",a,1".repeat(n * 16) },
    Row { shape: "markup around values", text: |n| "| **fc1/3** | `0xef0101` |\n".repeat(n) },
    Row { shape: "distinct values", text: |n| (0..n * 4).map(|i| format!("host-{i} ")).collect() },
    Row {
        shape: "non-ASCII digits and spaces",
        text: |n| "٤١٢٠٠\u{a0}41\u{2009}200 \u{1F600}".repeat(n * 4),
    },
];

/// The rule sets each row is read with: the defaults, figures on, and
/// forty declared shapes with twenty exempt patterns.
fn rule_sets() -> Vec<(&'static str, ValueRules)> {
    let shapes = (0..40)
        .map(|i| DeclaredShape {
            name: units(&format!("shape{i}")),
            regex: RegexSource::new(&format!("[a-z]{{1,3}}{i}[0-9a-z-]*")),
        })
        .collect();
    let exempt = (0..20).map(|i| Exempt::Pattern(RegexSource::new(&format!("x{i}[0-9]+")))).collect();
    vec![
        ("defaults", ValueRules::default()),
        ("figures", ValueRules::new(ValueOptions { figures: true, ..Default::default() }).unwrap()),
        ("many shapes", ValueRules::new(ValueOptions { shapes, exempt, ..Default::default() }).unwrap()),
    ]
}

const BASE: usize = 64;

#[test]
fn work_grows_linearly_with_the_answer() {
    let mut over = Vec::new();
    for (rules_name, rules) in rule_sets() {
        for row in ROWS {
            let at = |scale: usize| {
                let work = Work::default();
                answer_values_counted(&units(&(row.text)(BASE * scale)), &rules, &work);
                work.total()
            };
            let (one, four, sixteen) = (at(1), at(4), at(16));
            let name = format!("{rules_name}, {}", row.shape);
            eprintln!("{name}: {one} at 1x, {four} at 4x, {sixteen} at 16x");
            if four > 5 * one || sixteen > 20 * one {
                over.push(format!("{name}: {one} at 1x, {four} at 4x, {sixteen} at 16x"));
            }
        }
    }
    assert!(over.is_empty(), "work grew faster than the answer:\n{}", over.join("\n"));
}

#[test]
fn a_megabyte_token_is_read_in_one_pass() {
    let huge = units(&"7".repeat(1 << 20));
    let work = Work::default();
    let rules = ValueRules::new(ValueOptions { figures: true, ..Default::default() }).unwrap();
    let found = answer_values_counted(&huge, &rules, &work);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].value.len(), 1 << 20, "past 15 digits a number keeps its digits");
    assert!(work.total() < 12 * (1 << 20), "{}", work.total());
}
