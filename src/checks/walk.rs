//! The string leaves of a tool call's arguments, with their dot-paths.
//!
//! The walk is the one agentfootprint defines: a string is a leaf; an array
//! (as `Array.isArray` sees it) is walked element by element, reading its
//! length again before each element; any other non-null object is walked
//! through `Object.entries`; nothing else is a leaf or walked. Two things are
//! added so that hostile arguments cannot hurt the host:
//!
//! - the walk is iterative, so nesting depth costs heap, never native stack;
//! - a container already on the current path (a cycle) is not entered again.
//!   A container reached twice along different paths is walked each time,
//!   since each path is its own leaf.
//!
//! The walk knows nothing of JavaScript engines: it reads values through
//! [`ArgsTree`], which the binding implements over live JavaScript values and
//! the tests implement over plain Rust data.

/// What one argument value is, as the walk needs to know it.
pub enum Node<V> {
    /// A string: a leaf, in UTF-16 code units.
    Text(Vec<u16>),
    /// An array: elements are read one at a time with [`ArgsTree::list_len`]
    /// and [`ArgsTree::list_item`].
    List,
    /// Any other non-null object, with its `Object.entries` (keys in UTF-16).
    Record(Vec<(Vec<u16>, V)>),
    /// Numbers, booleans, null, undefined, bigints, symbols, functions.
    Opaque,
}

/// Read access to an arguments value. Every method may fail with the
/// source's own error (a throwing getter, say), which ends the walk.
pub trait ArgsTree {
    type Value: Clone;
    type Error;

    /// Classifies `value`; for a record this also reads all of its entries.
    fn node(&mut self, value: &Self::Value) -> Result<Node<Self::Value>, Self::Error>;
    /// The current length of an array.
    fn list_len(&mut self, list: &Self::Value) -> Result<usize, Self::Error>;
    /// Element `index` of an array.
    fn list_item(&mut self, list: &Self::Value, index: usize) -> Result<Self::Value, Self::Error>;
    /// Puts a container on the current path. Returns `false`, and leaves the
    /// path as it was, when the container is already on it.
    fn enter(&mut self, container: &Self::Value) -> Result<bool, Self::Error>;
    /// Takes the most recently entered container off the current path.
    fn leave(&mut self, container: &Self::Value);
    /// The error that ends a walk which has looked at more than
    /// [`MAX_WALKED_VALUES`] values.
    fn too_many_values(&mut self) -> Self::Error;
}

/// The most values one walk looks at (leaves, containers and everything
/// else, each time it is reached) before it gives up with
/// [`ArgsTree::too_many_values`].
///
/// The rules walk every path, so arguments can demand unbounded work
/// without being deep: a getter that returns a fresh object each time it is
/// read, one object shared along exponentially many paths, an array whose
/// length claims four billion holes. A recursive walk would end those with
/// a stack overflow; this one would run until memory ran out. A million is
/// ten times the 100,000-deep nesting the walk is built to survive, and far
/// beyond any argument object a model writes.
pub const MAX_WALKED_VALUES: usize = 1_000_000;

/// One step of a dot-path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Index(usize),
    Key(Vec<u16>),
}

/// The dot-path of a leaf: `filter.devices.0`, or empty at the top.
#[derive(Debug, Default)]
pub struct LeafPath(Vec<Segment>);

impl LeafPath {
    /// The path as JavaScript spells it, in UTF-16.
    ///
    /// The path is threaded as a string, as agentfootprint does: a segment
    /// is joined with a dot only to a non-empty path, so below an empty key
    /// the path starts afresh (`{ '': ['x'] }` gives `0`, not `.0`).
    pub fn dotted(&self) -> Vec<u16> {
        let mut dotted = Vec::new();
        for segment in &self.0 {
            if !dotted.is_empty() {
                dotted.push(u16::from(b'.'));
            }
            match segment {
                Segment::Index(index) => {
                    crate::checks::text::js_string::push_str(&mut dotted, &index.to_string())
                }
                Segment::Key(key) => dotted.extend_from_slice(key),
            }
        }
        dotted
    }

    pub fn segments(&self) -> &[Segment] {
        &self.0
    }
}

enum Frame<V> {
    List { list: V, next: usize },
    Record { record: V, entries: std::vec::IntoIter<(Vec<u16>, V)> },
}

impl<V> Frame<V> {
    fn container(&self) -> &V {
        match self {
            Frame::List { list, .. } => list,
            Frame::Record { record, .. } => record,
        }
    }
}

/// Calls `visit(path, value, units)` for every string leaf under `root`, in
/// the order agentfootprint's generator yields them, reading values lazily
/// in that same order. `value` is the leaf as the tree holds it, `units` its
/// UTF-16 code units.
pub fn walk_string_leaves<T: ArgsTree>(
    tree: &mut T,
    root: T::Value,
    mut visit: impl FnMut(&LeafPath, &T::Value, Vec<u16>),
) -> Result<(), T::Error> {
    let mut path = LeafPath::default();
    let mut stack: Vec<Frame<T::Value>> = Vec::new();
    // The value to look at next; its segment is already on `path` (except
    // for the root, which has none).
    let mut pending = Some(root);
    let mut walked = 0usize;
    loop {
        if let Some(value) = pending.take() {
            walked += 1;
            if walked > MAX_WALKED_VALUES {
                return Err(tree.too_many_values());
            }
            let frame = match tree.node(&value)? {
                Node::Text(leaf) => {
                    visit(&path, &value, leaf);
                    None
                }
                Node::List => Some(Frame::List { list: value, next: 0 }),
                Node::Record(entries) => Some(Frame::Record { record: value, entries: entries.into_iter() }),
                Node::Opaque => None,
            };
            match frame {
                Some(frame) if tree.enter(frame.container())? => stack.push(frame),
                // A leaf, an opaque value, or a cycle: this segment is done.
                _ => {
                    if !stack.is_empty() {
                        path.0.pop();
                    }
                }
            }
            continue;
        }
        let Some(top) = stack.last_mut() else { break };
        let next = match top {
            Frame::List { list, next } => {
                let index = *next;
                if index < tree.list_len(list)? {
                    *next += 1;
                    Some((Segment::Index(index), tree.list_item(list, index)?))
                } else {
                    None
                }
            }
            Frame::Record { entries, .. } => entries.next().map(|(key, value)| (Segment::Key(key), value)),
        };
        match next {
            Some((segment, value)) => {
                path.0.push(segment);
                pending = Some(value);
            }
            None => {
                let done = stack.pop().expect("the stack has a top frame");
                tree.leave(done.container());
                if !stack.is_empty() {
                    path.0.pop();
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::checks::text::js_string::units;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// Arguments as plain Rust data, shared like JavaScript objects so that
    /// cycles and repeated references can be built.
    #[derive(Clone)]
    pub enum Arg {
        Str(Vec<u16>),
        Num,
        Null,
        List(Rc<RefCell<Vec<Arg>>>),
        Record(Rc<RefCell<Vec<(Vec<u16>, Arg)>>>),
    }

    pub fn s(text: &str) -> Arg {
        Arg::Str(units(text))
    }

    pub fn list(items: Vec<Arg>) -> Arg {
        Arg::List(Rc::new(RefCell::new(items)))
    }

    pub fn record(entries: Vec<(&str, Arg)>) -> Arg {
        Arg::Record(Rc::new(RefCell::new(entries.into_iter().map(|(k, v)| (units(k), v)).collect())))
    }

    impl Arg {
        fn identity(&self) -> Option<usize> {
            match self {
                Arg::List(items) => Some(Rc::as_ptr(items) as *const u8 as usize),
                Arg::Record(entries) => Some(Rc::as_ptr(entries) as *const u8 as usize),
                _ => None,
            }
        }
    }

    /// The test tree: identity by pointer, the path as a stack.
    #[derive(Default)]
    pub struct Plain {
        on_path: Vec<usize>,
        on_path_set: std::collections::HashSet<usize>,
    }

    impl ArgsTree for Plain {
        type Value = Arg;
        type Error = TooMany;

        fn node(&mut self, value: &Arg) -> Result<Node<Arg>, Self::Error> {
            Ok(match value {
                Arg::Str(text) => Node::Text(text.clone()),
                Arg::List(_) => Node::List,
                Arg::Record(entries) => Node::Record(entries.borrow().clone()),
                Arg::Num | Arg::Null => Node::Opaque,
            })
        }

        fn list_len(&mut self, list: &Arg) -> Result<usize, Self::Error> {
            let Arg::List(items) = list else { unreachable!() };
            Ok(items.borrow().len())
        }

        fn list_item(&mut self, list: &Arg, index: usize) -> Result<Arg, Self::Error> {
            let Arg::List(items) = list else { unreachable!() };
            Ok(items.borrow()[index].clone())
        }

        fn enter(&mut self, container: &Arg) -> Result<bool, Self::Error> {
            let id = container.identity().expect("a container");
            if !self.on_path_set.insert(id) {
                return Ok(false);
            }
            self.on_path.push(id);
            Ok(true)
        }

        fn leave(&mut self, _container: &Arg) {
            let id = self.on_path.pop().expect("a container on the path");
            self.on_path_set.remove(&id);
        }

        fn too_many_values(&mut self) -> TooMany {
            TooMany
        }
    }

    /// The test tree's one error: the walk's budget ran out.
    #[derive(Debug, PartialEq)]
    pub struct TooMany;

    fn leaves(root: Arg) -> Vec<(String, String)> {
        let mut found = Vec::new();
        walk_string_leaves(&mut Plain::default(), root, |path, _, leaf| {
            found.push((String::from_utf16_lossy(&path.dotted()), String::from_utf16_lossy(&leaf)));
        })
        .unwrap();
        found
    }

    fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
        expected.iter().map(|(p, v)| (p.to_string(), v.to_string())).collect()
    }

    #[test]
    fn leaves_and_paths() {
        let cases: Vec<(&str, Arg, Vec<(&str, &str)>)> = vec![
            ("flat record", record(vec![("wwpn", s("20:00")), ("port", Arg::Num)]), vec![("wwpn", "20:00")]),
            (
                "nested record and array",
                record(vec![("filter", record(vec![("devices", list(vec![s("a"), s("b")]))]))]),
                vec![("filter.devices.0", "a"), ("filter.devices.1", "b")],
            ),
            ("top-level string", s("alone"), vec![("", "alone")]),
            ("top-level array", list(vec![s("x"), Arg::Null, s("y")]), vec![("0", "x"), ("2", "y")]),
            ("opaque values are skipped", record(vec![("n", Arg::Null), ("x", Arg::Num)]), vec![]),
            ("empty key", record(vec![("", s("v"))]), vec![("", "v")]),
            (
                "below an empty key the path starts afresh",
                record(vec![("", list(vec![s("v")]))]),
                vec![("0", "v")],
            ),
            (
                "empty keys all the way down",
                record(vec![("", record(vec![("", record(vec![("k", s("v"))]))]))]),
                vec![("k", "v")],
            ),
            (
                "an empty key below a real one",
                record(vec![("a", record(vec![("", s("v"))]))]),
                vec![("a.", "v")],
            ),
            (
                "keys with dots are not escaped",
                record(vec![("a.b", record(vec![("c", s("v"))]))]),
                vec![("a.b.c", "v")],
            ),
            ("empty containers", record(vec![("a", list(vec![])), ("b", record(vec![]))]), vec![]),
            (
                "siblings after a deep branch keep their own paths",
                record(vec![("a", record(vec![("b", record(vec![("c", s("1"))]))])), ("d", s("2"))]),
                vec![("a.b.c", "1"), ("d", "2")],
            ),
        ];
        for (name, root, expected) in cases {
            assert_eq!(leaves(root), pairs(&expected), "{name}");
        }
    }

    #[test]
    fn a_cycle_is_not_entered_again_but_its_leaves_are_judged() {
        let root = record(vec![("id", s("first"))]);
        let Arg::Record(entries) = &root else { unreachable!() };
        entries.borrow_mut().push((units("self"), root.clone()));
        entries.borrow_mut().push((units("after"), s("last")));
        assert_eq!(leaves(root.clone()), pairs(&[("id", "first"), ("after", "last")]));

        let items = list(vec![s("x")]);
        let Arg::List(inner) = &items else { unreachable!() };
        inner.borrow_mut().push(items.clone());
        inner.borrow_mut().push(s("y"));
        assert_eq!(leaves(items), pairs(&[("0", "x"), ("2", "y")]));
    }

    #[test]
    fn a_shared_container_is_walked_on_each_path() {
        let shared = record(vec![("v", s("same"))]);
        let root = record(vec![("a", shared.clone()), ("b", shared)]);
        assert_eq!(leaves(root), pairs(&[("a.v", "same"), ("b.v", "same")]));
    }

    #[test]
    fn the_walk_stops_past_its_budget() {
        let at_budget = list((0..MAX_WALKED_VALUES - 1).map(|_| Arg::Num).collect());
        assert!(walk_string_leaves(&mut Plain::default(), at_budget, |_, _, _| ()).is_ok());
        let past_budget = list((0..MAX_WALKED_VALUES).map(|_| Arg::Num).collect());
        assert_eq!(walk_string_leaves(&mut Plain::default(), past_budget, |_, _, _| ()), Err(TooMany));
    }

    #[test]
    fn depth_costs_heap_not_stack() {
        let mut value = s("bottom");
        for _ in 0..100_000 {
            value = record(vec![("k", value)]);
        }
        // Dropping the chain would recurse once per level; keep it alive.
        std::mem::forget(value.clone());
        let found = leaves(value);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0.len(), 100_000 * 2 - 1);
        assert_eq!(found[0].1, "bottom");
    }
}
