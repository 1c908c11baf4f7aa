//! A call's live JavaScript values as the core reads them: its arguments
//! ([`LiveArgs`], walked as `Object.entries` and `Array.isArray` see them,
//! getters, Proxy traps and cycles included) and its grounds as live strings
//! ([`LiveGrounds`], read when the scan reaches them). Both live for one
//! call and keep nothing after it.

use super::js::{Handle, IsArray, Js};
use crate::empty_lookup::{
    ground::{GroundText, Grounding, Lowered},
    walk::{ArgsTree, Node, MAX_WALKED_VALUES},
};
use napi::{Result, ValueType};

/// One declared ground of a call, as a live string.
pub(super) struct LiveGround {
    /// Its index in `produced`.
    pub(super) index: usize,
    pub(super) producer: Vec<u16>,
    pub(super) text: Handle,
}

/// A call's declared grounds as live strings: each text is read and
/// lower-cased when the scan reaches it, through buffers of this call.
pub(super) struct LiveGrounds {
    pub(super) js: Js,
    pub(super) grounds: Vec<LiveGround>,
}

impl Grounding<napi::Error> for LiveGrounds {
    fn is_unreachable(&self) -> bool {
        self.grounds.is_empty()
    }

    fn scan(&mut self, visit: &mut dyn FnMut(usize, GroundText<'_>) -> bool) -> Result<()> {
        let mut units = Vec::new();
        let mut lowered = Lowered::Ascii(Vec::new());
        for ground in &self.grounds {
            self.js.utf16_into(ground.text, &mut units)?;
            lowered.lower_from(&units);
            if !visit(ground.index, lowered.as_ground()) {
                break;
            }
        }
        Ok(())
    }

    fn producer(&self, index: usize) -> &[u16] {
        let ground = self.grounds.iter().find(|ground| ground.index == index);
        &ground.expect("an index the scan showed").producer
    }
}

/// Past this depth the containers on the current path are tracked in a JS
/// `Set` instead of by comparing against each one in turn.
const LINEAR_PATH_LIMIT: usize = 32;

/// Live JavaScript arguments, read as `Object.entries` and `Array.isArray`
/// see them. The built-ins are looked up the first time the walk needs
/// them, once per call.
pub(super) struct LiveArgs {
    js: Js,
    pub(super) is_array: IsArray,
    object_entries: Option<(Handle, Handle)>,
    on_path: Vec<Handle>,
    /// `(set, has, add, delete)` once the path is deep.
    path_set: Option<[Handle; 4]>,
}

impl LiveArgs {
    pub(super) fn new(js: Js) -> Self {
        LiveArgs { js, is_array: IsArray::new(js), object_entries: None, on_path: Vec::new(), path_set: None }
    }

    /// A record's `Object.entries`: keys in UTF-16, values as handles.
    fn entries(&mut self, object: Handle) -> Result<Vec<(Vec<u16>, Handle)>> {
        let js = self.js;
        let (receiver, entries) = match self.object_entries {
            Some(found) => found,
            None => *self.object_entries.insert(js.builtin(c"Object", c"entries")?),
        };
        let pairs = js.call(entries, receiver, &[object])?;
        let count = js.plain_array_len(pairs)?;
        let mut read = Vec::with_capacity(count as usize);
        for i in 0..count {
            let pair = js.element(pairs, i)?;
            read.push((js.utf16(js.element(pair, 0)?)?, js.element(pair, 1)?));
        }
        Ok(read)
    }

    fn path_set(&mut self) -> Result<[Handle; 4]> {
        if let Some(set) = self.path_set {
            return Ok(set);
        }
        let js = self.js;
        let set = js.construct(js.global(c"Set")?, &[])?;
        let methods = [set, js.get(set, c"has")?, js.get(set, c"add")?, js.get(set, c"delete")?];
        for &container in &self.on_path {
            js.call(methods[2], set, &[container])?;
        }
        Ok(*self.path_set.insert(methods))
    }
}

impl ArgsTree for LiveArgs {
    type Value = Handle;
    type Error = napi::Error;

    fn node(&mut self, value: &Handle) -> Result<Node<Handle>> {
        Ok(match self.js.type_of(*value)? {
            ValueType::String => Node::Text(self.js.utf16(*value)?),
            ValueType::Object if self.is_array.test(*value)? => Node::List,
            ValueType::Object => Node::Record(self.entries(*value)?),
            _ => Node::Opaque,
        })
    }

    fn list_len(&mut self, list: &Handle) -> Result<usize> {
        self.is_array.len(*list)
    }

    fn list_item(&mut self, list: &Handle, index: usize) -> Result<Handle> {
        self.js.element(*list, index as u32)
    }

    fn enter(&mut self, container: &Handle) -> Result<bool> {
        let js = self.js;
        if self.on_path.len() < LINEAR_PATH_LIMIT && self.path_set.is_none() {
            for &ancestor in &self.on_path {
                if js.strict_equals(ancestor, *container)? {
                    return Ok(false);
                }
            }
        } else {
            let [set, has, add, _] = self.path_set()?;
            if js.bool(js.call(has, set, &[*container])?)? {
                return Ok(false);
            }
            js.call(add, set, &[*container])?;
        }
        self.on_path.push(*container);
        Ok(true)
    }

    fn leave(&mut self, container: &Handle) {
        self.on_path.pop();
        if let Some([set, _, _, delete]) = self.path_set {
            // `Set.prototype.delete` on a Set we made cannot throw.
            let _ = self.js.call(delete, set, &[*container]);
        }
    }

    fn too_many_values(&mut self) -> napi::Error {
        self.js.range_error(&format!(
            "call.args holds more than {} values along its paths (a getter that returns a new object \
every time, an object shared along very many paths, or an array with billions of holes); it was not judged",
            MAX_WALKED_VALUES
        ))
    }
}
