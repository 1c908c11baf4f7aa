//! A call's live JavaScript values as the core reads them: its arguments
//! ([`LiveArgs`], walked as `Object.entries` and `Array.isArray` see them,
//! getters, Proxy traps and cycles included) and the texts it is judged
//! against as live strings ([`LiveTexts`], [`LiveGrounds`], read when the
//! scan reaches them). All of them live for one call and keep nothing
//! after it.

use crate::binding::napi::{Handle, IsArray, Js};
use crate::checks::text::ground::{GroundText, Grounding, Lowered, Texts};
use crate::checks::walk::{ArgsTree, Node, MAX_WALKED_VALUES};
use napi::{Result, ValueType};

/// Texts of a call as live strings, each with its index: read and
/// lower-cased when the scan reaches it, through buffers of this call.
pub(super) struct LiveTexts {
    js: Js,
    texts: Vec<(usize, Handle)>,
}

impl LiveTexts {
    pub(super) fn new(js: Js) -> Self {
        LiveTexts { js, texts: Vec::new() }
    }

    /// Adds a string the caller has checked is one.
    pub(super) fn push(&mut self, index: usize, text: Handle) {
        self.texts.push((index, text));
    }

    /// How many texts it holds.
    pub(super) fn len(&self) -> usize {
        self.texts.len()
    }
}

impl Texts<napi::Error> for LiveTexts {
    fn scan(&mut self, visit: &mut dyn FnMut(usize, GroundText<'_>) -> bool) -> Result<()> {
        let mut units = Vec::new();
        let mut lowered = Lowered::Ascii(Vec::new());
        for &(index, text) in &self.texts {
            self.js.utf16_into(text, &mut units)?;
            lowered.lower_from(&units);
            if !visit(index, lowered.as_ground()) {
                break;
            }
        }
        Ok(())
    }
}

/// A call's declared grounds as live strings, with their producers.
pub(super) struct LiveGrounds {
    texts: LiveTexts,
    producers: Vec<Vec<u16>>,
}

impl LiveGrounds {
    pub(super) fn new(js: Js) -> Self {
        LiveGrounds { texts: LiveTexts::new(js), producers: Vec::new() }
    }

    /// Adds result `index` of `producer`.
    pub(super) fn push(&mut self, index: usize, producer: Vec<u16>, text: Handle) {
        self.texts.push(index, text);
        self.producers.push(producer);
    }
}

impl Texts<napi::Error> for LiveGrounds {
    fn scan(&mut self, visit: &mut dyn FnMut(usize, GroundText<'_>) -> bool) -> Result<()> {
        self.texts.scan(visit)
    }
}

impl Grounding<napi::Error> for LiveGrounds {
    fn is_unreachable(&self) -> bool {
        self.producers.is_empty()
    }

    fn producer(&self, index: usize) -> &[u16] {
        let at = self.texts.texts.iter().position(|&(known, _)| known == index);
        &self.producers[at.expect("an index the scan showed")]
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
