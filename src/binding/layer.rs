//! The native half of the package's JavaScript layer (`lib/write-seam.cjs`).
//!
//! The layer answers the cases the reading decides on its own, reads the
//! call's fields and the produced list in JavaScript (where a property read
//! costs nanoseconds, not a boundary crossing), and builds the result
//! objects there from the compact answers below, with the prose templates of
//! `core::prose`. What is decided stays here: which results are grounds, the
//! leaf walk, the fence, and which leaf is grounded by which result. These
//! entries are left out of the typings; the package entry does not export
//! them.

use super::js::{Handle, Js};
use super::live::{with_env_lookups, with_ground_cache, LiveArgs, LiveGround, LiveGrounds};
use crate::empty_lookup::{
    self as core,
    ground::{is_declared_ground, Grounding},
    prose, Join,
};
use napi::bindgen_prelude::{Object, Unknown};
use napi::{Env, JsValue, Result, ValueType};
use napi_derive::napi;
use std::rc::Rc;

/// The templates and fixed phrases a JavaScript layer needs to build the
/// same findings as the all-native `emptyLookupOf`: `{ templates, emptyRowset,
/// emptyAbsence, ceiling, ellipsis }`.
#[napi(skip_typescript, catch_unwind, js_name = "emptyLookupProse")]
pub fn empty_lookup_prose<'env>(env: &'env Env) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let mut templates = Vec::new();
    for (name, template) in prose::TEMPLATES {
        templates.push(js.array(&[js.str(name)?, js.str(template)?])?);
    }
    let prose = js.object(&[
        (c"templates", js.array(&templates)?),
        (c"emptyRowset", js.str(core::Shape::Rowset.empty_phrase())?),
        (c"emptyAbsence", js.str(core::Shape::Absence.empty_phrase())?),
        (c"ceiling", js.str(core::EMPTY_LOOKUP_CEILING)?),
        (c"ellipsis", js.str("\u{2026}")?),
    ])?;
    Ok(js.unknown(prose))
}

/// Width of one join in the compact answer: `path, leaf, producer, quote`.
const JOIN_WIDTH: usize = 4;

/// The joins as one flat array, [`JOIN_WIDTH`] slots each; `leaf` is the
/// argument's own string, handed back untouched. `quote` packs the quote
/// into one number, `start * 256 + (end - start) * 2 + clipped`: a quote is
/// at most `MAX_QUOTED_UNITS` (80) units long and a string's length fits in
/// 30 bits, so the number is an exact integer.
pub(super) fn joins_to_js(
    js: Js,
    joins: &[Join<Handle>],
    producer: impl Fn(usize) -> Result<Handle>,
) -> Result<Handle> {
    let mut flat = Vec::with_capacity(joins.len() * JOIN_WIDTH);
    for join in joins {
        flat.extend([
            js.string(&join.path)?,
            join.leaf,
            producer(join.ground)?,
            js.number(packed_quote(&join.quote))?,
        ]);
    }
    js.array(&flat)
}

/// A quote as one number (see [`joins_to_js`]).
fn packed_quote(quote: &core::ground::Quote) -> f64 {
    const _: () = assert!(core::MAX_QUOTED_UNITS < 128);
    quote.start as f64 * 256.0 + ((quote.end - quote.start) * 2 + usize::from(quote.clipped)) as f64
}

/// The strings of a genuine array the JavaScript layer built.
fn string_list(js: Js, list: Handle, what: &str) -> Result<Vec<Handle>> {
    if !js.is_plain_array(list)? {
        return Err(js.wrong_type(what, "an array of strings", list));
    }
    let mut strings = Vec::new();
    for i in 0..js.plain_array_len(list)? {
        let string = js.element(list, i)?;
        if js.type_of(string)? != ValueType::String {
            return Err(js.wrong_type(what, "an array of strings", list));
        }
        strings.push(string);
    }
    Ok(strings)
}

/// The units of each string of such an array: the declared tool names.
pub(super) fn tool_names(js: Js, list: Handle, what: &str) -> Result<Vec<Vec<u16>>> {
    string_list(js, list, what)?.into_iter().map(|name| js.utf16(name)).collect()
}

/// Installs the variadic entry, which napi-rs's `#[napi]` functions cannot
/// express.
#[napi(module_exports)]
pub fn install_variadic(exports: Object, env: Env) -> Result<()> {
    let js = Js::new(&env);
    js.export_variadic(exports.raw(), c"emptyLookupJoins", empty_lookup_joins)?;
    js.export_variadic(exports.raw(), c"emptyLookupReachable", empty_lookup_reachable)?;
    js.export_variadic(exports.raw(), c"emptyLookupFast", empty_lookup_fast)
}

/// `emptyLookupJoins(args, fromCount, ...items)`: which string leaves of
/// `args` are grounded by which result, for a call whose reading is an empty
/// one.
///
/// `items` are the call's `fromCount` declared tool names, then three for
/// each result of `produced`, in order: its name, its text and a code, a
/// number `id * 2 + ascii`. `ascii` is 1 only when every unit of the text is
/// ASCII (see [`Js::lowered`]); `id`, when not 0, is the name the
/// JavaScript layer gives this text's string value, under which the env's
/// [`GroundCache`] keeps its lowered form between calls. They come spread as
/// arguments, so that all of them cross in one call, or for a long list as
/// one array.
///
/// Returns `null` when no declared producer served a non-empty result, else
/// the flat joins (`producer` is the result's name string).
unsafe extern "C" fn empty_lookup_joins(
    env: napi::sys::napi_env,
    info: napi::sys::napi_callback_info,
) -> Handle {
    unsafe { Js::run_variadic(env, info, joins_of_items) }
}

/// The largest id a code can carry exactly.
const MAX_ID: f64 = (1u64 << 52) as f64;

fn joins_of_items(js: Js, arguments: &[Handle]) -> Result<Handle> {
    let misuse = || js.type_error("emptyLookupJoins(args, fromCount, ...items): bad arguments");
    let [args, from_count, spread @ ..] = arguments else { return Err(misuse()) };
    let items = match spread {
        [list] if js.is_plain_array(*list)? => elements_of(js, *list)?,
        _ => spread.to_vec(),
    };
    if js.type_of(*from_count)? != ValueType::Number {
        return Err(misuse());
    }
    let from_count = js.f64(*from_count)?;
    if !(0.0..=items.len() as f64).contains(&from_count)
        || from_count.fract() != 0.0
        || !(items.len() - from_count as usize).is_multiple_of(3)
    {
        return Err(misuse());
    }
    let (from, results) = items.split_at(from_count as usize);
    let mut arguments_from = Vec::with_capacity(from.len());
    for &name in from {
        if js.type_of(name)? != ValueType::String {
            return Err(misuse());
        }
        arguments_from.push(js.utf16(name)?);
    }
    let mut grounds = LiveGrounds { js, grounds: Vec::new() };
    for (index, triple) in results.chunks_exact(3).enumerate() {
        let [name, text, code] = [triple[0], triple[1], triple[2]];
        if js.type_of(name)? != ValueType::String
            || js.type_of(text)? != ValueType::String
            || js.type_of(code)? != ValueType::Number
        {
            return Err(misuse());
        }
        let code = js.f64(code)?;
        if !(0.0..MAX_ID).contains(&code) || code.fract() != 0.0 {
            return Err(misuse());
        }
        let code = code as u64;
        let producer = js.utf16(name)?;
        let units = js.string_len(text)?;
        if is_declared_ground(&arguments_from, &producer, units) {
            grounds.grounds.push(LiveGround::new(index, producer.into(), text, units, code));
        }
    }
    if Grounding::<napi::Error>::is_unreachable(&grounds) {
        return js.null();
    }
    let joins = core::joins(&mut LiveArgs::new(js), *args, &mut grounds)?;
    joins_to_js(js, &joins, |index| Ok(results[index * 3]))
}

// ---- Numbers in a shared array ------------------------------------------------
//
// On a small call most of the time went to the boundary: about seventy
// napi calls to read the declared names, each result's name, text and code,
// one at a time, and a call back into JavaScript for the arguments' entries.
// The fast path takes the numbers from a `Float64Array` the layer fills
// (tool names by id, each text's cache code and length), takes the entries
// of the arguments' root as plain arguments (the layer reads them with
// `Object.entries`, once it knows the call is reachable, as the rules'
// walk would), and writes the joins back into the same array when every
// grounded leaf is an entry of the root.
//
// The slots, as the layer writes them:
//
//   spread, fromCount, fromId..., rootCount, resultCount, (nameId, code, units)...
//
// `rootCount` is how many `[key, value]` entries of the root there are, or
// -1 when the root is an array (walked here). With `spread` 1 the entries'
// keys and values follow `args` among the arguments, then one text per
// result; with `spread` 0 (too many to spread) two arrays follow instead,
// the entries flat and the texts.

/// The most tool names an env keeps by id.
const MAX_NAME_IDS: u32 = 4096;

/// The longest tool name kept by id, in UTF-16 units.
const MAX_NAME_UNITS: usize = 256;

/// `emptyLookupName(id, name)`: the layer names `name` by `id` for this
/// env's fast calls. An id already in use is given the new name (the layer
/// reuses ids once it has handed out [`MAX_NAME_IDS`]).
#[napi(skip_typescript, catch_unwind, js_name = "emptyLookupName")]
pub fn empty_lookup_name(env: &Env, id: u32, name: Unknown) -> Result<()> {
    let js = Js::new(env);
    if js.type_of(name.raw())? != ValueType::String {
        return Err(js.wrong_type("emptyLookupName: name", "a string", name.raw()));
    }
    let units = js.utf16(name.raw())?;
    if id >= MAX_NAME_IDS || units.len() > MAX_NAME_UNITS {
        return Err(js.range_error(&format!(
            "emptyLookupName: ids go below {MAX_NAME_IDS} and names up to {MAX_NAME_UNITS} units"
        )));
    }
    with_env_lookups(js, |state| {
        let id = id as usize;
        if state.names.len() <= id {
            state.names.resize(id + 1, Rc::from(&[][..]));
        }
        state.names[id] = units.into();
    })
}

/// The limits the layer keeps to: `[maxNameIds, maxNameUnits]`.
#[napi(skip_typescript, catch_unwind, js_name = "emptyLookupNameLimits")]
pub fn empty_lookup_name_limits() -> Vec<u32> {
    vec![MAX_NAME_IDS, MAX_NAME_UNITS as u32]
}

/// One result as the slots give it.
struct SlotResult {
    name: Rc<[u16]>,
    code: u64,
    units: usize,
}

/// A fast call's numbers, read from its slots.
struct SlotCall {
    /// Whether the entries and texts come spread as arguments.
    spread: bool,
    from: Vec<Rc<[u16]>>,
    /// How many root entries the arguments hold, when the layer read them.
    root: Option<usize>,
    results: Vec<SlotResult>,
}

impl SlotCall {
    /// Reads the slots; any number out of place is the layer's misuse.
    fn read(js: Js, slots: &[f64]) -> Result<Self> {
        let misuse = || js.type_error("emptyLookupFast: slots out of place");
        let mut at = 0;
        let mut next = |limit: f64| -> Result<f64> {
            let value = *slots.get(at).ok_or_else(misuse)?;
            at += 1;
            if value.fract() != 0.0 || !(-1.0..=limit).contains(&value) {
                return Err(misuse());
            }
            Ok(value)
        };
        with_env_lookups(js, |state| {
            let name = |id: f64| -> Result<Rc<[u16]>> {
                state.names.get(id as usize).filter(|_| id >= 0.0).cloned().ok_or_else(misuse)
            };
            let spread = next(1.0)? == 1.0;
            let from_count = next(slots.len() as f64)?;
            let mut from = Vec::with_capacity(from_count.max(0.0) as usize);
            for _ in 0..from_count.max(0.0) as usize {
                from.push(name(next(f64::from(MAX_NAME_IDS))?)?);
            }
            let root = next(u32::MAX as f64)?;
            let result_count = next(slots.len() as f64)?.max(0.0) as usize;
            let mut results = Vec::with_capacity(result_count);
            for _ in 0..result_count {
                let name = name(next(f64::from(MAX_NAME_IDS))?)?;
                let code = next(MAX_ID)?.max(0.0) as u64;
                let units = next(u32::MAX as f64)?.max(0.0) as usize;
                results.push(SlotResult { name, code, units });
            }
            Ok(SlotCall { spread, from, root: (root >= 0.0).then_some(root as usize), results })
        })?
    }

    fn is_reachable(&self) -> bool {
        self.results.iter().any(|result| is_declared_ground(&self.from, &result.name, result.units))
    }
}

/// The elements of a genuine array the layer built.
fn elements_of(js: Js, list: Handle) -> Result<Vec<Handle>> {
    if !js.is_plain_array(list)? {
        return Err(js.type_error("seamguard: the layer passes its lists as arrays"));
    }
    (0..js.plain_array_len(list)?).map(|i| js.element(list, i)).collect()
}

/// Runs `body` with the slots of a fast call (its first argument, a
/// `Float64Array`). Nothing in `body` may run JavaScript: a nested check
/// (from a getter) writes the same array, so the slice must not live
/// across a call into JavaScript.
fn with_slots<R>(js: Js, view: Handle, body: impl FnOnce(&mut [f64]) -> R) -> Result<R> {
    match js.float64_array(view)? {
        // SAFETY: the layer's own array, alive for this call; its buffer
        // never reaches user code, so nothing detaches it, and no
        // JavaScript runs while the slice lives.
        Some((data, len)) => Ok(body(unsafe { std::slice::from_raw_parts_mut(data, len) })),
        None => Err(js.type_error("emptyLookupFast: slots must be a Float64Array")),
    }
}

/// `emptyLookupReachable(slots)`: whether any result the slots describe is
/// a ground of the call, so that the layer reads the arguments only when
/// the rules would walk them.
unsafe extern "C" fn empty_lookup_reachable(
    env: napi::sys::napi_env,
    info: napi::sys::napi_callback_info,
) -> Handle {
    unsafe {
        Js::run_variadic(env, info, |js, arguments| {
            let [view] = arguments else { return Err(js.type_error("emptyLookupReachable(slots)")) };
            let call = with_slots(js, *view, |slots| SlotCall::read(js, slots))??;
            js.boolean(call.is_reachable())
        })
    }
}

/// `emptyLookupFast(slots, args, ...rootEntries, ...texts)`: the joins of
/// a reachable call. Answers `null` when no result is a ground after all; a
/// number `n` when every grounded leaf is an entry of the root, with the
/// joins written to the slots, three numbers each (the entry's index, the
/// result's index, the packed quote); else the flat joins, as
/// `emptyLookupJoins` gives them.
unsafe extern "C" fn empty_lookup_fast(
    env: napi::sys::napi_env,
    info: napi::sys::napi_callback_info,
) -> Handle {
    unsafe { Js::run_variadic(env, info, fast_joins) }
}

fn fast_joins(js: Js, arguments: &[Handle]) -> Result<Handle> {
    let misuse = || js.type_error("emptyLookupFast(slots, args, ...rootEntries, ...texts): bad arguments");
    let [view, args, rest @ ..] = arguments else { return Err(misuse()) };
    let call = with_slots(js, *view, |slots| SlotCall::read(js, slots))??;
    let root_items = call.root.map_or(0, |count| count * 2);
    let listed;
    let rest = match rest {
        _ if call.spread => rest,
        [flat, texts] => {
            let mut items = elements_of(js, *flat)?;
            items.extend(elements_of(js, *texts)?);
            listed = items;
            &listed[..]
        }
        _ => return Err(misuse()),
    };
    if rest.len() != root_items + call.results.len() {
        return Err(misuse());
    }
    let (root, texts) = rest.split_at(root_items);
    let mut live = LiveArgs::new(js);
    if call.root.is_some() {
        let mut entries = Vec::with_capacity(root.len() / 2);
        for pair in root.chunks_exact(2) {
            if js.type_of(pair[0])? != ValueType::String {
                return Err(misuse());
            }
            entries.push((js.utf16(pair[0])?, pair[1]));
        }
        live.root_entries = Some((*args, entries));
    }
    let mut grounds = LiveGrounds { js, grounds: Vec::new() };
    // The texts are not type-checked here: the layer passes strings, and
    // one that is not would fail to read with napi's own error.
    for (index, (result, &text)) in call.results.iter().zip(texts).enumerate() {
        if is_declared_ground(&call.from, &result.name, result.units) {
            grounds.grounds.push(LiveGround::new(index, Rc::clone(&result.name), text, result.units, result.code));
        }
    }
    if Grounding::<napi::Error>::is_unreachable(&grounds) {
        return js.null();
    }
    let joins = core::joins(&mut live, *args, &mut grounds)?;
    // Every join an entry of the root, and room for them: the numbers.
    let entry_of = |join: &Join<Handle>| {
        (join.path_depth == 1).then(|| root.chunks_exact(2).position(|pair| pair[1] == join.leaf)).flatten()
    };
    let entries: Option<Vec<usize>> = call.root.and_then(|_| joins.iter().map(entry_of).collect());
    if let Some(entries) = entries {
        let written = with_slots(js, *view, |slots| {
            if joins.len() * 3 > slots.len() {
                return false;
            }
            for ((slot, join), entry) in slots.chunks_exact_mut(3).zip(&joins).zip(entries) {
                slot[0] = entry as f64;
                slot[1] = join.ground as f64;
                slot[2] = packed_quote(&join.quote);
            }
            true
        })?;
        if written {
            return js.number(joins.len() as f64);
        }
    }
    joins_to_js(js, &joins, |index| js.string(&call.results[index].name))
}

/// `groundCacheBound(units)`: sets the bound of this env's [`GroundCache`]
/// when `units` is a non-negative number (dropping the oldest entries past
/// it), and returns the bound in force. For the JavaScript layer, which
/// bounds its own map of ids the same way, and for tests.
#[napi(skip_typescript, catch_unwind, js_name = "groundCacheBound")]
pub fn ground_cache_bound(env: &Env, units: Unknown) -> Result<f64> {
    let js = Js::new(env);
    let units = units.raw();
    let wanted = match js.type_of(units)? {
        ValueType::Number => Some(js.f64(units)?).filter(|units| *units >= 0.0),
        _ => None,
    };
    with_ground_cache(js, |cache| {
        if let Some(units) = wanted {
            cache.set_bound(units.min(usize::MAX as f64) as usize);
        }
        cache.bound() as f64
    })
}
