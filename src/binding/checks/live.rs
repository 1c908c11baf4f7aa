//! A call's live JavaScript values as the core reads them: its arguments
//! ([`LiveArgs`], walked as `Object.entries` and `Array.isArray` see them,
//! getters, Proxy traps and cycles included) and the texts it is judged
//! against as live strings ([`LiveString`], read when the scan reaches
//! them). All of them live for one call and keep nothing after it.

use crate::binding::napi::{Handle, IsArray, Js};
use crate::checks::text::ground::HeldText;
use crate::checks::walk::{ArgsTree, Node, MAX_WALKED_VALUES};
use napi::{Result, ValueType};

/// A string of the call, checked to be one, which the core reads only
/// when a scan reaches it.
pub(super) struct LiveString {
    js: Js,
    text: Handle,
}

impl LiveString {
    /// `text`, which the caller has checked is a string.
    pub(super) fn new(js: Js, text: Handle) -> Self {
        LiveString { js, text }
    }
}

impl HeldText<napi::Error> for LiveString {
    fn read_into(&self, units: &mut Vec<u16>) -> Result<()> {
        self.js.utf16_into(self.text, units)
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
    /// How the error of a walk past its budget names the arguments.
    what: String,
}

impl LiveArgs {
    pub(super) fn new(js: Js) -> Self {
        LiveArgs {
            js,
            is_array: IsArray::new(js),
            object_entries: None,
            on_path: Vec::new(),
            path_set: None,
            what: "call.args".into(),
        }
    }

    /// Names the arguments the next walk reads (`calls[2].args`), for its
    /// error.
    pub(super) fn naming(&mut self, what: String) {
        self.what = what;
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
            "{} holds more than {} values along its paths (a getter that returns a new object \
every time, an object shared along very many paths, or an array with billions of holes); it was not judged",
            self.what, MAX_WALKED_VALUES
        ))
    }
}
