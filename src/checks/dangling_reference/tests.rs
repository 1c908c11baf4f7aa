use super::*;
use crate::checks::text::js_string::units as u;

fn text(units: &[u16]) -> String {
    String::from_utf16(units).unwrap()
}

fn served(name: &str, grounds: &[&str]) -> ServedTool {
    ServedTool { name: u(name), arguments_from: grounds.iter().map(|g| u(g)).collect() }
}

fn judge(tools: &[ServedTool], dropped: &[&str], present: &[&str]) -> Vec<ContextError> {
    let has = |set: &[&str], name: &[u16]| Ok::<_, ()>(set.iter().any(|n| u(n) == name));
    dangling_references_of(tools, |n| has(dropped, n), |n| has(present, n), 4.0).unwrap()
}

#[test]
fn the_fences_and_the_finding() {
    let tools = [served("screen_fire", &["whats_here"])];
    assert!(judge(&tools, &[], &[]).is_empty(), "never dropped");
    assert!(judge(&tools, &["whats_here"], &["whats_here"]).is_empty(), "fetched again");
    let found = judge(&tools, &["whats_here"], &[]);
    assert_eq!(found.len(), 1);
    let f = &found[0];
    assert_eq!(f.predicate, None);
    let ids: Vec<String> = f.subjects.iter().map(|s| text(&s.id)).collect();
    assert_eq!(ids, ["screen_fire", "whats_here"]);
    assert_eq!(text(f.witnesses[0].value.as_text()), "results of 'whats_here' evicted, not re-established");
    assert_eq!(text(&f.witnesses[0].predicate), "argument-ground");
    let message = text(&f.message);
    assert!(message.contains("screen_fire") && message.contains("whats_here"), "{message}");
}

#[test]
fn repeats_and_order_are_kept() {
    let tools = [served("a", &["g", "h", "g"]), served("b", &[]), served("c", &["h"])];
    let found = judge(&tools, &["g", "h"], &["h"]);
    assert_eq!(found.len(), 1);
    let ids: Vec<String> = found[0].subjects.iter().map(|s| text(&s.id)).collect();
    assert_eq!(ids, ["a", "g", "g"]);
    assert_eq!(found[0].witnesses.len(), 2);
}

#[test]
fn present_is_asked_only_after_dropped_says_yes() {
    let tools = [served("a", &["g", "h"])];
    let mut asked = Vec::new();
    let asked_ref = std::cell::RefCell::new(&mut asked);
    let _ = dangling_references_of(
        &tools,
        |n| Ok::<_, ()>(n == u("h")),
        |n| {
            asked_ref.borrow_mut().push(text(n));
            Ok(false)
        },
        0.0,
    );
    assert_eq!(asked, ["h"]);
}

#[test]
fn applicable_needs_a_grounded_tool_and_a_drop() {
    let na = Disposition::NotApplicable;
    assert_eq!(disposition(&[served("a", &["g"])], false, &[]), na);
    assert_eq!(disposition(&[served("a", &[])], true, &[]), na);
    assert_eq!(disposition(&[], true, &[]), na);
    assert_eq!(disposition(&[served("a", &[]), served("b", &["g"])], true, &[]), Disposition::CheckedPass);
    let found = judge(&[served("b", &["g"])], &["g"], &[]);
    assert_eq!(disposition(&[served("b", &["g"])], true, &found), Disposition::CheckedFail);
}
