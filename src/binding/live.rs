//! Live JavaScript values as the core reads them: a call's arguments
//! ([`LiveArgs`], walked as `Object.entries` and `Array.isArray` see them,
//! getters, Proxy traps and cycles included) and its grounds as live strings
//! ([`LiveGrounds`]), with what each env keeps between calls for them.

use super::js::{Builtin, Handle, IsArray, Js};
use crate::empty_lookup::{
    cache::GroundCache,
    ground::{GroundText, Grounding, Lowered},
    walk::{ArgsTree, Node, MAX_WALKED_VALUES},
};
use napi::{Result, ValueType};
use std::rc::Rc;

thread_local! {
    /// The buffer a ground's text is read into, kept between calls so that
    /// a call does not fault in fresh pages for every large text.
    static GROUND_BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };

    /// What each env keeps between calls for its JavaScript layer. An env
    /// lives on one thread; its entry is dropped by a cleanup hook when the
    /// env goes away.
    static ENV_LOOKUPS: std::cell::RefCell<Vec<(usize, EnvLookups)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// An env's state for its JavaScript layer's calls.
#[derive(Default)]
pub(super) struct EnvLookups {
    /// Lowered grounds, by the ids the layer gives result texts.
    pub(super) cache: GroundCache,
    /// Tool names, by the ids the layer gives them (see
    /// [`empty_lookup_name`]).
    pub(super) names: Vec<Rc<[u16]>>,
}

unsafe extern "C" fn forget_env_lookups(env: *mut std::ffi::c_void) {
    ENV_LOOKUPS.with(|envs| envs.borrow_mut().retain(|(known, _)| *known != env as usize));
}

/// Runs `body` with this env's state, made on first use. Nothing in `body`
/// may run JavaScript (reading a string's contents does not).
pub(super) fn with_env_lookups<R>(js: Js, body: impl FnOnce(&mut EnvLookups) -> R) -> Result<R> {
    let key = js.raw_env() as usize;
    ENV_LOOKUPS.with(|envs| {
        let mut envs = envs.borrow_mut();
        let at = match envs.iter().position(|(env, _)| *env == key) {
            Some(at) => at,
            None => {
                napi::check_status!(unsafe {
                    napi::sys::napi_add_env_cleanup_hook(
                        js.raw_env(),
                        Some(forget_env_lookups),
                        js.raw_env().cast(),
                    )
                })?;
                envs.push((key, EnvLookups::default()));
                envs.len() - 1
            }
        };
        Ok(body(&mut envs[at].1))
    })
}

/// Runs `body` with this env's ground cache (see [`with_env_lookups`]).
pub(super) fn with_ground_cache<R>(js: Js, body: impl FnOnce(&mut GroundCache) -> R) -> Result<R> {
    with_env_lookups(js, |state| body(&mut state.cache))
}

/// Past this size the ground buffer is given back after a call rather than
/// kept for the next.
const KEEP_GROUND_BUFFER: usize = 4 << 20;

/// One declared ground of a call, as a live string.
pub(super) struct LiveGround {
    /// Its index in `produced`.
    pub(super) index: usize,
    pub(super) producer: Rc<[u16]>,
    pub(super) text: Handle,
    /// The text's length in UTF-16 units.
    pub(super) units: usize,
    /// Whether every unit of the text is ASCII.
    pub(super) ascii: bool,
    /// Its id in the env's cache, or 0.
    pub(super) id: u64,
}

impl LiveGround {
    /// Result `index`, its producer and text, and the code the layer gave
    /// the text: `id * 2 + ascii`.
    pub(super) fn new(index: usize, producer: Rc<[u16]>, text: Handle, units: usize, code: u64) -> Self {
        LiveGround { index, producer, text, units, ascii: code & 1 == 1, id: code >> 1 }
    }
}

/// A call's declared grounds as live strings. A text with an id the cache
/// holds is not read at all; any other is read and lower-cased when the
/// scan reaches it, into the cache when it has an id and fits, else into
/// one reused buffer.
pub(super) struct LiveGrounds {
    pub(super) js: Js,
    pub(super) grounds: Vec<LiveGround>,
}

impl Grounding<napi::Error> for LiveGrounds {
    fn is_unreachable(&self) -> bool {
        self.grounds.is_empty()
    }

    fn scan(&mut self, visit: &mut dyn FnMut(usize, GroundText<'_>) -> bool) -> Result<()> {
        let js = self.js;
        let grounds = &self.grounds;
        with_ground_cache(js, |cache| {
            let mut bytes = GROUND_BUFFER.with(std::cell::Cell::take);
            let mut scratch = Vec::new();
            let mut outcome = Ok(());
            for ground in grounds {
                if ground.id != 0 && cache.fits(ground.units) {
                    let lowered = match cache.touch(ground.id, ground.units) {
                        Some(lowered) => lowered,
                        None => match js.lowered(ground.text, ground.ascii, Vec::new(), &mut scratch) {
                            Ok((lowered, units)) => {
                                cache.insert(ground.id, lowered, units);
                                cache.get(ground.id).expect("a text that fits is kept")
                            }
                            Err(error) => {
                                outcome = Err(error);
                                break;
                            }
                        },
                    };
                    if !visit(ground.index, lowered.as_ground()) {
                        break;
                    }
                    continue;
                }
                let lowered = match js.lowered(ground.text, ground.ascii, bytes, &mut scratch) {
                    Ok((lowered, _)) => lowered,
                    Err(error) => {
                        outcome = Err(error);
                        bytes = Vec::new();
                        break;
                    }
                };
                let more = visit(ground.index, lowered.as_ground());
                bytes = match lowered {
                    Lowered::Ascii(kept) => kept,
                    Lowered::Wide(_) => Vec::new(),
                };
                if !more {
                    break;
                }
            }
            if bytes.capacity() <= KEEP_GROUND_BUFFER {
                GROUND_BUFFER.with(|kept| kept.set(bytes));
            }
            outcome
        })?
    }

    fn producer(&self, index: usize) -> &[u16] {
        let ground = self.grounds.iter().find(|ground| ground.index == index);
        &ground.expect("an index the scan showed").producer
    }
}

/// Past this depth the containers on the current path are tracked in a JS
/// `Set` instead of by comparing against each one in turn.
const LINEAR_PATH_LIMIT: usize = 32;

/// A record's `Object.entries`: keys in UTF-16, values as handles.
type Entries = Vec<(Vec<u16>, Handle)>;

/// Live JavaScript arguments, read as `Object.entries` and `Array.isArray`
/// see them.
pub(super) struct LiveArgs {
    js: Js,
    pub(super) is_array: IsArray,
    record_entries: Option<(Handle, Handle)>,
    on_path: Vec<Handle>,
    /// `(set, has, add, delete)` once the path is deep.
    path_set: Option<[Handle; 4]>,
    /// The root's `Object.entries`, when the JavaScript layer read them
    /// (see [`empty_lookup_fast`]): taken by the walk's first look at the
    /// root instead of reading them again.
    pub(super) root_entries: Option<(Handle, Entries)>,
}

impl LiveArgs {
    pub(super) fn new(js: Js) -> Self {
        LiveArgs {
            js,
            is_array: IsArray::new(js),
            record_entries: None,
            on_path: Vec::new(),
            path_set: None,
            root_entries: None,
        }
    }

    /// A non-array object's `Object.entries`, or `None` when
    /// `Array.isArray` says it is an array after all (a Proxy of one).
    fn record_entries(&mut self, object: Handle) -> Result<Option<Entries>> {
        let js = self.js;
        let (receiver, record_entries) = match self.record_entries {
            Some(found) => found,
            None => *self.record_entries.insert(js.builtin(Builtin::RecordEntries)?),
        };
        let flat = js.call(record_entries, receiver, &[object])?;
        if js.type_of(flat)? == ValueType::Null {
            return Ok(None);
        }
        let count = js.plain_array_len(flat)? / 2;
        let mut entries = Vec::with_capacity(count as usize);
        for i in 0..count {
            entries.push((js.utf16(js.element(flat, 2 * i)?)?, js.element(flat, 2 * i + 1)?));
        }
        Ok(Some(entries))
    }

    fn path_set(&mut self) -> Result<[Handle; 4]> {
        if let Some(set) = self.path_set {
            return Ok(set);
        }
        let js = self.js;
        let set = js.construct(js.get(js.global()?, c"Set")?)?;
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
        if self.root_entries.as_ref().is_some_and(|(root, _)| root == value) {
            let (_, entries) = self.root_entries.take().expect("just seen");
            return Ok(Node::Record(entries));
        }
        Ok(match self.js.type_of(*value)? {
            ValueType::String => Node::Text(self.js.utf16(*value)?),
            // A genuine array needs no call into JavaScript; anything else
            // asks Array.isArray and Object.entries in one crossing.
            ValueType::Object if self.js.is_plain_array(*value)? => Node::List,
            ValueType::Object => match self.record_entries(*value)? {
                Some(entries) => Node::Record(entries),
                None => Node::List,
            },
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
