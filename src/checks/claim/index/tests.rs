//! The index kept as entries come and go, against a plain model that walks
//! the in-window entries afresh at each look-up, as agentfootprint's
//! `evidenceFromHistory` and `exemptFromRun` walk the history.

use super::*;
use crate::checks::corpus::{Role, RunCorpus};
use crate::checks::text::js_string::units;

/// agentfootprint's reading, rebuilt from the in-window entries in order.
struct Rebuilt {
    /// Form → the newest turn serving it.
    served: HashMap<Vec<u16>, u32>,
    supplied: HashSet<Vec<u16>>,
    current_turn: u32,
    tool_results_this_turn: u32,
}

fn rebuild(entries: &[(Role, String)]) -> Rebuilt {
    let mut rebuilt = Rebuilt {
        served: HashMap::new(),
        supplied: HashSet::new(),
        current_turn: 0,
        tool_results_this_turn: 0,
    };
    for (role, text) in entries {
        let text = units(text);
        match role {
            Role::User if !is_correction(&text) => {
                rebuilt.current_turn += 1;
                rebuilt.tool_results_this_turn = 0;
                rebuilt.supplied.extend(supplied_forms(&text));
            }
            Role::System => rebuilt.supplied.extend(supplied_forms(&text)),
            Role::Tool => {
                rebuilt.tool_results_this_turn += 1;
                let turn = rebuilt.current_turn;
                let mut stamp = |raw: &[u16]| {
                    spellings_of(raw, &mut |form| {
                        rebuilt.served.insert(form.to_vec(), turn);
                    })
                };
                read_served(&text, &mut |piece| match piece {
                    Piece::String(units) => {
                        stamp(units);
                        tokenize(units, &mut stamp);
                    }
                    Piece::Atom(units) => stamp(units),
                    Piece::Text(units) => tokenize(units, &mut stamp),
                });
            }
            _ => {}
        }
    }
    rebuilt
}

impl Rebuilt {
    fn find(&self, forms: &[&[u16]]) -> Found {
        if forms.iter().any(|form| self.supplied.contains(*form)) {
            return Found::Supplied;
        }
        match forms.iter().filter_map(|form| self.served.get(*form)).max() {
            Some(&turn) => Found::Served { turn },
            None => Found::Unsupported,
        }
    }
}

const TEXTS: [&str; 14] = [
    "is srv-4417 up?",
    r#"{"hosts":[{"id":4417,"name":"srv-4417","up":true}]}"#,
    r#"{"port":"fc1/3","wwn":"21:00:00:24:ff:4a:12:03"}"#,
    "FLEET: callisto-02, europa-03 at 41,200 IOPS",
    "[evidence check — quoted: `ganymede-9` (identifier)]",
    "what about 0xef0101 on 2026-10-09 at 8 pm?",
    r#"{"fcid":"ef0101","msg":"link down on fc1/3 sin"#,
    "{\"id\":77}\n\n[identical call: 'list_hosts' 2 times]",
    "ganymede-9 is healthy",
    "naa.600a0b80 serial 9007199254740993",
    "",
    r#"{"truncated":true,"head":"{\"rows\":[{\"serial\":\"SN-1182\"},{\"ser"}"#,
    "Answer at 20:00 please",
    "[schema check — reply as JSON]",
];

const VALUES: [&str; 16] = [
    "srv-4417",
    "4417",
    "true",
    "fc1/3",
    "21:00:00:24:ff:4a:12:03",
    "callisto-02",
    "41200",
    "ganymede-9",
    "0xef0101",
    "ef0101",
    "2026",
    "20:00",
    "8:00pm",
    "77",
    "sn-1182",
    "9007199254740993",
];

#[test]
fn every_look_up_is_the_rebuilt_answer_after_random_pushes_evictions_and_clears() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |below: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % below
    };
    let roles = [Role::System, Role::User, Role::User, Role::Assistant, Role::Tool, Role::Tool, Role::Tool];
    for _run in 0..60 {
        let mut corpus = RunCorpus::new();
        // Every entry since the last clear, with its id and whether it is in
        // the window.
        let mut model: Vec<(u64, Role, String, bool)> = Vec::new();
        for _step in 0..80 {
            match next(12) {
                0..=6 => {
                    let role = roles[next(roles.len() as u64) as usize];
                    let text = TEXTS[next(TEXTS.len() as u64) as usize].to_string();
                    let id = corpus.push(role, Some(&units("t")), &units(&text));
                    model.push((id, role, text, true));
                }
                7..=10 => {
                    if model.is_empty() {
                        continue;
                    }
                    let ids: Vec<u64> =
                        (0..=next(2)).map(|_| model[next(model.len() as u64) as usize].0).collect();
                    corpus.evict(&ids).unwrap();
                    for entry in &mut model {
                        if ids.contains(&entry.0) {
                            entry.3 = false;
                        }
                    }
                }
                _ => {
                    corpus.clear();
                    model.clear();
                    assert_eq!(corpus.external_bytes(), 0, "a clear frees the index too");
                }
            }
            let in_window: Vec<(Role, String)> =
                model.iter().filter(|e| e.3).map(|e| (e.1, e.2.clone())).collect();
            let rebuilt = rebuild(&in_window);
            let index = corpus.claim_index();
            assert_eq!(index.current_turn(), rebuilt.current_turn);
            assert_eq!(index.tool_results_this_turn(), rebuilt.tool_results_this_turn);
            for value in VALUES {
                let value = units(value);
                let forms: Vec<&[u16]> = lookup_forms(&value).collect();
                assert_eq!(
                    index.find(&forms, |_| false),
                    rebuilt.find(&forms),
                    "{} in {in_window:?}",
                    String::from_utf16_lossy(&value)
                );
            }
        }
    }
}

#[test]
fn what_each_role_puts_in() {
    let mut corpus = RunCorpus::new();
    let find = |corpus: &RunCorpus, value: &str| {
        let value = units(value);
        corpus.claim_index().find(&lookup_forms(&value).collect::<Vec<_>>(), |_| false)
    };
    corpus.push(Role::System, None, &units("Arrays are named like arr-0000."));
    corpus.push(Role::User, None, &units("Is port fc1/3 of arr-2291 up? Since 2026-10-09 8 Am."));
    corpus.push(Role::Assistant, None, &units("I think it is 0xdeadbeef."));
    corpus.push(
        Role::Tool,
        None,
        &units(r#"{"ports":{"fc1/3":{"state":"down","since":"21:00"}},"wwn":"0xEF0101"}"#),
    );
    corpus.push(
        Role::User,
        None,
        &units("[evidence check — the answer above states values… `srv-9` (identifier)"),
    );
    assert_eq!(find(&corpus, "arr-0000"), Found::Supplied, "the system prompt supplies");
    assert_eq!(find(&corpus, "arr-2291"), Found::Supplied, "the user supplies");
    assert_eq!(find(&corpus, "8:00"), Found::Supplied, "a respelt clock time");
    assert_eq!(find(&corpus, "10"), Found::Supplied, "a date's month");
    assert_eq!(find(&corpus, "fc1/3"), Found::Supplied, "supplied wins over served");
    assert_eq!(find(&corpus, "down"), Found::Served { turn: 1 }, "a JSON leaf");
    assert_eq!(find(&corpus, "ef0101"), Found::Served { turn: 1 }, "the bare spelling of an FCID");
    assert_eq!(find(&corpus, "21:00"), Found::Served { turn: 1 });
    assert_eq!(find(&corpus, "0xdeadbeef"), Found::Unsupported, "the model's own words ground nothing");
    assert_eq!(find(&corpus, "srv-9"), Found::Unsupported, "a correction supplies nothing");
    assert_eq!((corpus.claim_index().current_turn(), corpus.claim_index().tool_results_this_turn()), (1, 1));
}

#[test]
fn turns_are_counted_in_the_window() {
    let mut corpus = RunCorpus::new();
    let first = corpus.push(Role::User, None, &units("list the hosts"));
    corpus.push(Role::Tool, None, &units("host srv-4417"));
    corpus.push(Role::User, None, &units("and the ports?"));
    corpus.push(Role::Tool, None, &units("port fc1/3"));
    let third = corpus.push(Role::User, None, &units("thanks, summarise"));
    let index = |corpus: &RunCorpus, value: &str| {
        let value = units(value);
        corpus.claim_index().find(&lookup_forms(&value).collect::<Vec<_>>(), |_| false)
    };
    assert_eq!(index(&corpus, "srv-4417"), Found::Served { turn: 1 });
    assert_eq!(index(&corpus, "fc1/3"), Found::Served { turn: 2 });
    assert_eq!((corpus.claim_index().current_turn(), corpus.claim_index().tool_results_this_turn()), (3, 0));
    // The first question leaves the window: its result is turn 0 now, the
    // ports' turn 1 of 2; the distance between them is kept.
    corpus.evict(&[first]).unwrap();
    assert_eq!(index(&corpus, "srv-4417"), Found::Served { turn: 0 });
    assert_eq!(index(&corpus, "fc1/3"), Found::Served { turn: 1 });
    assert_eq!(corpus.claim_index().current_turn(), 2);
    // The question being answered leaves it too: the ports' turn is current.
    corpus.evict(&[third]).unwrap();
    assert_eq!(corpus.claim_index().current_turn(), 1);
    assert_eq!(corpus.claim_index().tool_results_this_turn(), 1);
}

/// Work, not time: judging one answer costs its values, not the history.
/// A run of `steps` questions, each answered by a 2-20 KB JSON result.
#[test]
fn judging_costs_the_same_at_step_300_as_at_step_30() {
    use crate::checks::claim::extract::ValueRules;
    use crate::checks::claim::judge::{evidence_of, Judging};
    let answer = units(&"srv-12 has id 4012, wwn 21:00:00:24:ff:4a:12:12 and peer fc9/9. ".repeat(200));
    let work_at = |steps: usize| {
        let mut corpus = RunCorpus::new();
        for step in 0..steps {
            corpus.push(Role::User, None, &units(&format!("question {step}")));
            let rows: Vec<String> = (0..(20 + step % 200))
                .map(|i| {
                    format!(
                        r#"{{"id":{},"name":"srv-{}","up":true,"wwn":"21:00:00:24:ff:4a:12:{}"}}"#,
                        4000 + i,
                        i,
                        i % 99
                    )
                })
                .collect();
            corpus.push(Role::Tool, Some(&units("rows")), &units(&format!("[{}]", rows.join(","))));
        }
        let index = corpus.claim_index();
        index.work.set(0);
        let judged = evidence_of(
            index,
            &answer,
            &ValueRules::default(),
            Judging { notice_prior_turn: true, ..Judging::default() },
        );
        assert_eq!(judged.verdict.candidates, 4, "srv-12, 4012, the wwn, fc9/9");
        index.work.get()
    };
    let (at_30, at_300) = (work_at(30), work_at(300));
    // Each value's spellings are hashed once; the turn of its newest result
    // is a binary search over the window's user turns: log steps, no more.
    assert!(at_30 > 0 && at_300 <= at_30 + 4 * 4, "{at_30} at step 30, {at_300} at step 300");
}

/// Pushing a result costs its length, for the worst shapes a result takes.
#[test]
fn worst_results_index_in_one_pass() {
    let tiny = format!("[{}]", vec!["1"; 200_000].join(","));
    let escapes = format!(
        r#"{{"k":"{}"}}"#,
        r"A
\"
        .repeat(100_000)
    );
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    for text in [tiny, escapes, deep] {
        let mut corpus = RunCorpus::new();
        corpus.push(Role::Tool, None, &units(&text));
        assert_eq!(corpus.claim_index().tool_results(), 1);
    }
}
