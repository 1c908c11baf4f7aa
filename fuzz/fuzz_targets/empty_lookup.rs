//! Fuzz target: the empty-lookup core over arguments held as plain data.
//!
//! The input bytes describe a small graph of argument values (strings,
//! arrays, records, opaque values, and values whose read fails, like a
//! throwing getter), with cycles and shared containers, a list of earlier
//! results, the declared producers and the reading. `empty_lookup_of` runs
//! over it through `Arena`, an `ArgsTree` of this file, and its answer is
//! compared with a direct recursive model of the rules. A panic, a
//! disagreement, a walk that leaves the path unbalanced, or a finding that
//! lacks what the specification requires is a crash.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use seamguard::checks::empty_lookup::{
    empty_lookup_of, read_lookup_result, CallParts, Encounter, Produced, EMPTY_LOOKUP_CEILING,
};
use seamguard::checks::finding::Disposition;
use seamguard::checks::text::ground::MIN_CHECKED_LENGTH;
use seamguard::checks::text::js_string::{contains, to_lower, trim, units};
use seamguard::checks::walk::{ArgsTree, Node};

/// Units where the JavaScript rules are easy to get wrong: case pairs,
/// final sigma, dotted capital I, whitespace trim removes and U+0085 that it
/// keeps, a surrogate pair and lone surrogates.
const ALPHABET: [u16; 16] = [
    0x61, 0x41, 0x62, 0x3A, 0x3A3, 0x3C3, 0x3C2, 0x130, 0x69, 0x307, 0x20, 0xA0, 0xFEFF, 0x85, 0xD83D, 0xDE00,
];
const KEYS: [&str; 4] = ["k", "0", "x.y", "Σ"];
const TOOLS: [&str; 3] = ["inventory", "cmdb", "other"];

/// Beyond this many visits the model gives up and the input is skipped: a
/// few shared containers nest into exponentially many paths, and the walk
/// visits every path (see the report for what that means for hostile
/// arguments).
const MOST_VISITS: usize = 20_000;

#[derive(Clone, Debug)]
enum Arg {
    Text(Vec<u16>),
    Opaque,
    List(Vec<usize>),
    Record(Vec<(Vec<u16>, usize)>),
    /// Reading it fails, as a throwing getter or Proxy trap does.
    Throws,
}

#[derive(Debug, PartialEq)]
struct Thrown(usize);

/// The arguments graph; values are indices into `nodes`.
struct Arena {
    nodes: Vec<Arg>,
    on_path: Vec<usize>,
}

impl ArgsTree for Arena {
    type Value = usize;
    type Error = Thrown;

    fn node(&mut self, value: &usize) -> std::result::Result<Node<usize>, Thrown> {
        Ok(match &self.nodes[*value] {
            Arg::Text(text) => Node::Text(text.clone()),
            Arg::Opaque => Node::Opaque,
            Arg::List(_) => Node::List,
            Arg::Record(entries) => Node::Record(entries.clone()),
            Arg::Throws => return Err(Thrown(*value)),
        })
    }

    fn list_len(&mut self, list: &usize) -> std::result::Result<usize, Thrown> {
        match &self.nodes[*list] {
            Arg::List(items) => Ok(items.len()),
            other => panic!("list_len of {other:?}"),
        }
    }

    fn list_item(&mut self, list: &usize, index: usize) -> std::result::Result<usize, Thrown> {
        match &self.nodes[*list] {
            Arg::List(items) => Ok(items[index]),
            other => panic!("list_item of {other:?}"),
        }
    }

    fn enter(&mut self, container: &usize) -> std::result::Result<bool, Thrown> {
        if self.on_path.contains(container) {
            return Ok(false);
        }
        self.on_path.push(*container);
        Ok(true)
    }

    fn leave(&mut self, container: &usize) {
        assert_eq!(self.on_path.pop(), Some(*container), "leave matches the last enter");
    }

    fn too_many_values(&mut self) -> Thrown {
        // An arena this small never reaches the walk's budget.
        unreachable!("the walk's budget ran out on a fuzz input")
    }
}

fn text(u: &mut Unstructured, most: usize) -> Result<Vec<u16>> {
    let len = u.int_in_range(0..=most)?;
    (0..len).map(|_| Ok(ALPHABET[u.choose_index(ALPHABET.len())?])).collect()
}

fn arena(u: &mut Unstructured) -> Result<Vec<Arg>> {
    let count = u.int_in_range(1..=12)?;
    let mut nodes = Vec::with_capacity(count);
    for _ in 0..count {
        let children = |u: &mut Unstructured| -> Result<Vec<usize>> {
            let len = u.int_in_range(0..=3)?;
            (0..len).map(|_| u.choose_index(count)).collect()
        };
        nodes.push(match u.int_in_range(0..=15u8)? {
            0..=5 => Arg::Text(text(u, 8)?),
            6 => Arg::Opaque,
            7..=10 => Arg::List(children(u)?),
            11..=14 => {
                let targets = children(u)?;
                let entries: Result<Vec<(Vec<u16>, usize)>> =
                    targets.into_iter().map(|t| Ok((units(KEYS[u.choose_index(KEYS.len())?]), t))).collect();
                Arg::Record(entries?)
            }
            _ => Arg::Throws,
        });
    }
    Ok(nodes)
}

/// Earlier results: each text joins some of the arena's strings (so that
/// leaves are grounded often), lower-cased or not, with filler between.
fn produced(u: &mut Unstructured, nodes: &[Arg]) -> Result<Vec<Produced>> {
    let strings: Vec<&Vec<u16>> =
        nodes.iter().filter_map(|n| if let Arg::Text(t) = n { Some(t) } else { None }).collect();
    let count = u.int_in_range(0..=4)?;
    (0..count)
        .map(|_| {
            let mut body = text(u, 3)?;
            for _ in 0..u.int_in_range(0..=3)? {
                if strings.is_empty() {
                    break;
                }
                let piece = strings[u.choose_index(strings.len())?];
                if u.arbitrary()? {
                    body.extend_from_slice(&to_lower(piece));
                } else {
                    body.extend_from_slice(piece);
                }
                body.extend(text(u, 2)?);
            }
            Ok(Produced { tool_name: units(TOOLS[u.choose_index(TOOLS.len())?]), text: body })
        })
        .collect()
}

/// The leaves as the rules define them, by plain recursion: strings, with
/// dot-paths, in order; a container already on the current path is not
/// entered again. `None` when the walk would be too long to model.
struct Model<'a> {
    nodes: &'a [Arg],
    on_path: Vec<usize>,
    /// The full dot-path at each depth.
    path: Vec<Vec<u16>>,
    leaves: Vec<(Vec<u16>, Vec<u16>)>,
    visits: usize,
}

impl Model<'_> {
    fn visit(&mut self, value: usize) -> std::result::Result<(), Option<Thrown>> {
        self.visits += 1;
        if self.visits > MOST_VISITS {
            return Err(None);
        }
        let children: Vec<(Vec<u16>, usize)> = match &self.nodes[value] {
            Arg::Text(text) => {
                let dotted = self.path.last().cloned().unwrap_or_default();
                self.leaves.push((dotted, text.clone()));
                return Ok(());
            }
            Arg::Opaque => return Ok(()),
            Arg::Throws => return Err(Some(Thrown(value))),
            Arg::List(items) => {
                items.iter().enumerate().map(|(i, &item)| (units(&i.to_string()), item)).collect()
            }
            Arg::Record(entries) => entries.clone(),
        };
        if self.on_path.contains(&value) {
            return Ok(());
        }
        self.on_path.push(value);
        for (segment, child) in children {
            // The path is threaded as a string, as agentfootprint does: a
            // dot joins a segment only to a non-empty path.
            let parent = self.path.last().cloned().unwrap_or_default();
            self.path.push(if parent.is_empty() { segment } else { [parent, vec![0x2E], segment].concat() });
            self.visit(child)?;
            self.path.pop();
        }
        self.on_path.pop();
        Ok(())
    }
}

/// A finding reduced to what the model decides: the leaf's path, the leaf
/// as chosen, and the tool whose result grounds it.
type Join = (Vec<u16>, Vec<u16>, Vec<u16>);

/// What the rules say: the disposition and the joins, or the failing read
/// that ends the walk (`Err(None)`: too many paths to model).
fn expected(
    nodes: &[Arg],
    empty: Option<bool>,
    from: &[Vec<u16>],
    produced: &[Produced],
) -> std::result::Result<(Disposition, Vec<Join>), Option<Thrown>> {
    let Some(empty) = empty else { return Ok((Disposition::NotApplicable, vec![])) };
    if !empty {
        return Ok((Disposition::CheckedPass, vec![]));
    }
    let grounds: Vec<&Produced> =
        produced.iter().filter(|p| from.contains(&p.tool_name) && !p.text.is_empty()).collect();
    if grounds.is_empty() {
        return Ok((Disposition::Unreachable, vec![]));
    }
    let mut model = Model { nodes, on_path: vec![], path: vec![], leaves: vec![], visits: 0 };
    model.visit(0)?;
    let mut joins = Vec::new();
    for (path, leaf) in model.leaves {
        let value = trim(&leaf);
        if value.len() < MIN_CHECKED_LENGTH {
            continue;
        }
        let needle = to_lower(value);
        if let Some(ground) = grounds.iter().find(|g| contains(&to_lower(&g.text), &needle)) {
            joins.push((path, leaf, ground.tool_name.clone()));
        }
    }
    let disposition = if joins.is_empty() { Disposition::CheckedPass } else { Disposition::CheckedFail };
    Ok((disposition, joins))
}

fn check(encounter: &Encounter, tool: &[u16], call_id: &[u16], epoch: f64) {
    let ceiling = units(EMPTY_LOOKUP_CEILING);
    for finding in &encounter.findings {
        assert_eq!(finding.subjects[0].id, tool);
        assert_eq!(finding.epoch.to_bits(), epoch.to_bits());
        for witness in &finding.witnesses {
            assert_eq!(Some(&witness.predicate), finding.predicate.as_ref());
            assert_eq!(witness.epoch.to_bits(), epoch.to_bits());
        }
        for needle in
            [&ceiling[..], tool, call_id, &finding.subjects[1].id, finding.predicate.as_ref().unwrap()]
        {
            assert!(
                contains(&finding.message, needle),
                "message lacks {:?}",
                String::from_utf16_lossy(needle)
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(nodes) = arena(&mut u) else { return };
    let Ok(results) = produced(&mut u, &nodes) else { return };
    let Ok(from_mask) = u.int_in_range(0..=7u8) else { return };
    let from: Vec<Vec<u16>> =
        TOOLS.iter().enumerate().filter(|(i, _)| from_mask >> i & 1 == 1).map(|(_, t)| units(t)).collect();
    let Ok(reading_kind) = u.int_in_range(0..=3u8) else { return };
    let reading = match reading_kind {
        0 => read_lookup_result(false, None),
        1 => read_lookup_result(false, Some(2)),
        2 => read_lookup_result(false, Some(0)),
        _ => read_lookup_result(true, None),
    };
    let epoch = f64::from_bits(u.arbitrary().unwrap_or(0));

    let want = expected(&nodes, reading.map(|r| r.empty), &from, &results);
    let want = match want {
        Err(None) => return, // too many paths to model
        other => other.map_err(|thrown| thrown.expect("a thrown value")),
    };

    let (tool, call_id) = (units("lookup"), units("call-f"));
    let parts =
        CallParts { tool_name: tool.clone(), tool_call_id: call_id.clone(), args: 0, arguments_from: from };
    let mut arena = Arena { nodes, on_path: Vec::new() };
    let got = empty_lookup_of(&mut arena, reading, epoch, |_| Ok((parts, results)));
    match (&got, &want) {
        (Ok(encounter), Ok((disposition, joins))) => {
            assert!(arena.on_path.is_empty(), "a finished walk leaves the path empty");
            assert_eq!(encounter.disposition, *disposition);
            let got_joins: Vec<_> = encounter
                .findings
                .iter()
                .map(|f| {
                    (f.predicate.clone().unwrap(), f.witnesses[0].value.clone(), f.subjects[1].id.clone())
                })
                .collect();
            assert_eq!(&got_joins, joins);
            check(encounter, &tool, &call_id, epoch);
        }
        (Err(thrown), Err(expected)) => assert_eq!(thrown, expected, "the first failing read ends the walk"),
        _ => panic!("core {got:?} but model {want:?}"),
    }
});
