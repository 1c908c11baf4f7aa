//! Raw access to JavaScript values for the binding layer.
//!
//! The binding reads argument objects whose shape it does not control
//! (getters, Proxies, cycles), so it works on raw `napi_value` handles with
//! these few checked operations rather than through typed conversions.
//! Every operation returns napi's status as an error; when JavaScript threw
//! (a getter, a Proxy trap), the error is `PendingException` and the
//! original exception is what reaches the caller.

use crate::empty_lookup::ground::Lowered;
use napi::{check_status, sys, Env, Error, Result, Status, ValueType};
use std::ffi::{CStr, CString};
use std::mem::MaybeUninit;
use std::ptr;

pub type Handle = sys::napi_value;

#[derive(Clone, Copy)]
pub struct Js {
    env: sys::napi_env,
}

impl Js {
    pub fn new(env: &Env) -> Self {
        Js { env: env.raw() }
    }

    pub fn raw_env(&self) -> sys::napi_env {
        self.env
    }

    pub fn from_raw(env: sys::napi_env) -> Self {
        Js { env }
    }

    /// Every argument of the current call, fetched in one crossing.
    pub fn arguments(&self, info: sys::napi_callback_info) -> Result<Vec<Handle>> {
        let mut count = 0;
        check_status!(unsafe {
            sys::napi_get_cb_info(
                self.env,
                info,
                &mut count,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        })?;
        let mut arguments = vec![ptr::null_mut(); count];
        check_status!(unsafe {
            sys::napi_get_cb_info(
                self.env,
                info,
                &mut count,
                arguments.as_mut_ptr(),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        })?;
        arguments.truncate(count);
        Ok(arguments)
    }

    /// Sets `exports[name]` to a native function that takes any number of
    /// arguments. `body` gets them all at once; its error is thrown (or,
    /// when JavaScript already threw, left pending), and a panic becomes an
    /// `Error` instead of crossing into JavaScript.
    pub fn export_variadic(
        &self,
        exports: Handle,
        name: &CStr,
        callback: unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> Handle,
    ) -> Result<()> {
        let mut function = ptr::null_mut();
        check_status!(unsafe {
            sys::napi_create_function(
                self.env,
                name.as_ptr(),
                name.count_bytes() as isize,
                Some(callback),
                ptr::null_mut(),
                &mut function,
            )
        })?;
        self.set(exports, name, function)
    }

    /// Runs the body of a variadic function (see [`Js::export_variadic`]).
    ///
    /// # Safety
    /// `env` and `info` must be the ones napi passed to the callback.
    pub unsafe fn run_variadic(
        env: sys::napi_env,
        info: sys::napi_callback_info,
        body: impl FnOnce(Js, &[Handle]) -> Result<Handle> + std::panic::UnwindSafe,
    ) -> Handle {
        let js = Js::from_raw(env);
        let outcome = std::panic::catch_unwind(|| body(js, &js.arguments(info)?));
        let error = match outcome {
            Ok(Ok(value)) => return value,
            Ok(Err(error)) => error,
            Err(_) => Error::new(Status::GenericFailure, "seamguard: a native helper panicked"),
        };
        unsafe { napi::JsError::from(error).throw_into(env) };
        ptr::null_mut()
    }

    /// Throws a `TypeError` with `message` and returns the error that lets
    /// it through to the caller.
    pub fn type_error(&self, message: &str) -> Error {
        self.throw(sys::napi_throw_type_error, message)
    }

    /// Throws a `RangeError` with `message` (a value of the right type
    /// outside what is allowed).
    pub fn range_error(&self, message: &str) -> Error {
        self.throw(sys::napi_throw_range_error, message)
    }

    /// Throws a plain `Error` with `message` (a call that is not allowed
    /// now, whatever its arguments).
    pub fn error(&self, message: &str) -> Error {
        self.throw(sys::napi_throw_error, message)
    }

    /// Throws through one of napi's `napi_throw_*_error` functions and
    /// returns the error that lets the exception through to the caller.
    fn throw(
        &self,
        throw: unsafe fn(sys::napi_env, *const std::ffi::c_char, *const std::ffi::c_char) -> sys::napi_status,
        message: &str,
    ) -> Error {
        let message = CString::new(message.replace('\0', "\\0")).expect("no NUL left");
        // If throwing fails an exception is already pending; either way the
        // caller sees a JavaScript exception.
        unsafe { throw(self.env, ptr::null(), message.as_ptr()) };
        Error::from_status(Status::PendingException)
    }

    /// Throws `TypeError: {what} must be {must} (got {typeof value})`.
    pub fn wrong_type(&self, what: &str, must: &str, value: Handle) -> Error {
        let got = self.describe(value).unwrap_or("an unreadable value");
        self.type_error(&format!("{what} must be {must} (got {got})"))
    }

    pub fn type_of(&self, value: Handle) -> Result<ValueType> {
        let mut kind = 0;
        check_status!(unsafe { sys::napi_typeof(self.env, value, &mut kind) })?;
        Ok(ValueType::from(kind))
    }

    /// How a value is described in an error message: `typeof`, with null
    /// told apart.
    pub fn describe(&self, value: Handle) -> Result<&'static str> {
        Ok(match self.type_of(value)? {
            ValueType::Undefined => "undefined",
            ValueType::Null => "null",
            ValueType::Boolean => "boolean",
            ValueType::Number => "number",
            ValueType::String => "string",
            ValueType::Symbol => "symbol",
            ValueType::Object => "object",
            ValueType::Function => "function",
            ValueType::External => "external",
            ValueType::BigInt => "bigint",
            _ => "unknown",
        })
    }

    /// The UTF-16 code units of a string, lone surrogates included.
    pub fn utf16(&self, string: Handle) -> Result<Vec<u16>> {
        // Most strings read here are short (names, keys, argument values):
        // one read into a buffer on the stack, rather than asking the length
        // first. napi ends what it writes with a NUL, so a string that filled
        // the buffer may have been cut, and is read again in full.
        let mut short = [0u16; 128];
        let mut written = 0;
        check_status!(unsafe {
            sys::napi_get_value_string_utf16(self.env, string, short.as_mut_ptr(), short.len(), &mut written)
        })?;
        if written < short.len() - 1 {
            return Ok(short[..written].to_vec());
        }
        let mut units = Vec::new();
        self.utf16_into(string, &mut units)?;
        Ok(units)
    }

    /// Reads a string's UTF-16 code units into `units`, replacing what it
    /// held, so a caller that keeps the buffer allocates only when a string
    /// outgrows every earlier one.
    pub fn utf16_into(&self, string: Handle, units: &mut Vec<u16>) -> Result<()> {
        let mut length = 0;
        check_status!(unsafe {
            sys::napi_get_value_string_utf16(self.env, string, ptr::null_mut(), 0, &mut length)
        })?;
        units.clear();
        // napi writes a terminating NUL, so the buffer needs one unit more.
        units.reserve(length + 1);
        let mut written = 0;
        check_status!(unsafe {
            sys::napi_get_value_string_utf16(self.env, string, units.as_mut_ptr(), length + 1, &mut written)
        })?;
        // SAFETY: napi initialised `written` units (and the NUL after them).
        unsafe { units.set_len(written) };
        Ok(())
    }

    /// A string's `.length`, in UTF-16 code units, without reading it.
    pub fn string_len(&self, string: Handle) -> Result<usize> {
        let mut length = 0;
        check_status!(unsafe {
            sys::napi_get_value_string_utf16(self.env, string, ptr::null_mut(), 0, &mut length)
        })?;
        Ok(length)
    }

    /// Copies a string one byte per UTF-16 unit (each unit cut to its low
    /// byte, as V8 does) into `buffer`, which must have room for its
    /// `.length` plus the NUL napi writes after it; answers how many bytes
    /// hold the text, all of them initialised.
    pub fn latin1_into(&self, string: Handle, buffer: &mut [MaybeUninit<u8>]) -> Result<usize> {
        let mut written = 0;
        check_status!(unsafe {
            sys::napi_get_value_string_latin1(
                self.env,
                string,
                buffer.as_mut_ptr().cast(),
                buffer.len(),
                &mut written,
            )
        })?;
        Ok(written)
    }

    /// The text of a string lower-cased once, and its `.length`.
    ///
    /// `ascii` is the caller's word that every unit is ASCII (the package's
    /// JavaScript layer learns it from `Buffer.byteLength`, which V8 answers
    /// with SIMD for one-byte strings): such text is read one byte per unit,
    /// a plain copy of a one-byte string, into `bytes` (whose allocation is
    /// reused). Any other text is read as UTF-16 units through `scratch`.
    pub fn lowered(
        &self,
        string: Handle,
        ascii: bool,
        mut bytes: Vec<u8>,
        scratch: &mut Vec<u16>,
    ) -> Result<(Lowered, usize)> {
        if ascii {
            let room = self.string_len(string)? + 1;
            bytes.clear();
            bytes.reserve(room);
            let written = self.latin1_into(string, &mut bytes.spare_capacity_mut()[..room])?;
            // SAFETY: napi initialised `written` bytes.
            unsafe { bytes.set_len(written) };
            // A byte past ASCII shows the word was wrong (V8 cut two-byte
            // units to their low byte); read the units instead. A cut that
            // lands in ASCII cannot be seen here, so the word must be true.
            if let Ok(lowered) = Lowered::of_ascii(bytes) {
                return Ok((lowered, room - 1));
            }
        }
        self.utf16_into(string, scratch)?;
        Ok((Lowered::of_units(scratch), scratch.len()))
    }

    pub fn f64(&self, number: Handle) -> Result<f64> {
        let mut value = 0.0;
        check_status!(unsafe { sys::napi_get_value_double(self.env, number, &mut value) })?;
        Ok(value)
    }

    pub fn bool(&self, boolean: Handle) -> Result<bool> {
        let mut value = false;
        check_status!(unsafe { sys::napi_get_value_bool(self.env, boolean, &mut value) })?;
        Ok(value)
    }

    /// `ToNumber(value)`, running `valueOf` where JavaScript would.
    pub fn to_number(self, value: Handle) -> Result<f64> {
        let mut number = ptr::null_mut();
        check_status!(unsafe { sys::napi_coerce_to_number(self.env, value, &mut number) })?;
        self.f64(number)
    }

    /// `object[name]`, running getters and Proxy traps.
    pub fn get(&self, object: Handle, name: &CStr) -> Result<Handle> {
        let mut value = ptr::null_mut();
        check_status!(unsafe { sys::napi_get_named_property(self.env, object, name.as_ptr(), &mut value) })?;
        Ok(value)
    }

    /// The object's own enumerable string keys, as `Object.keys` lists
    /// them (running a Proxy's traps).
    pub fn own_keys(&self, object: Handle) -> Result<Vec<Vec<u16>>> {
        let mut names = ptr::null_mut();
        check_status!(unsafe {
            sys::napi_get_all_property_names(
                self.env,
                object,
                sys::KeyCollectionMode::own_only,
                sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
                sys::KeyConversion::numbers_to_strings,
                &mut names,
            )
        })?;
        (0..self.plain_array_len(names)?).map(|i| self.utf16(self.element(names, i)?)).collect()
    }

    /// `object[name] = value`.
    pub fn set(&self, object: Handle, name: &CStr, value: Handle) -> Result<()> {
        check_status!(unsafe { sys::napi_set_named_property(self.env, object, name.as_ptr(), value) })
    }

    /// `object[index]`, running getters and Proxy traps.
    pub fn element(&self, object: Handle, index: u32) -> Result<Handle> {
        let mut value = ptr::null_mut();
        check_status!(unsafe { sys::napi_get_element(self.env, object, index, &mut value) })?;
        Ok(value)
    }

    /// Whether `value` is a genuine Array (not a Proxy of one).
    /// Tells V8 that native memory tied to JavaScript objects grew (or,
    /// negative, shrank) by `change` bytes, so that it weighs that memory
    /// when it schedules collections.
    pub fn adjust_external_memory(&self, change: i64) -> Result<()> {
        let mut total = 0;
        check_status!(unsafe { sys::napi_adjust_external_memory(self.env, change, &mut total) })?;
        Ok(())
    }

    /// The elements of a `Float64Array`, or `None` for any other value.
    /// The memory stays valid while the array is reachable and not
    /// detached; the caller uses it within the current call.
    pub fn float64_array(&self, value: Handle) -> Result<Option<(*mut f64, usize)>> {
        let (mut kind, mut length, mut data) = (sys::TypedarrayType::int8_array, 0, ptr::null_mut());
        // Anything but a typed array is napi's invalid argument.
        let status = unsafe {
            sys::napi_get_typedarray_info(
                self.env,
                value,
                &mut kind,
                &mut length,
                &mut data,
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        if status != sys::Status::napi_ok || kind != sys::TypedarrayType::float64_array || data.is_null() {
            return Ok(None);
        }
        Ok(Some((data.cast(), length)))
    }

    pub fn is_plain_array(&self, value: Handle) -> Result<bool> {
        let mut is_array = false;
        check_status!(unsafe { sys::napi_is_array(self.env, value, &mut is_array) })?;
        Ok(is_array)
    }

    /// The length of a genuine Array.
    pub fn plain_array_len(&self, array: Handle) -> Result<u32> {
        let mut length = 0;
        check_status!(unsafe { sys::napi_get_array_length(self.env, array, &mut length) })?;
        Ok(length)
    }

    pub fn call(&self, function: Handle, this: Handle, args: &[Handle]) -> Result<Handle> {
        let mut result = ptr::null_mut();
        check_status!(unsafe {
            sys::napi_call_function(self.env, this, function, args.len(), args.as_ptr(), &mut result)
        })?;
        Ok(result)
    }

    pub fn strict_equals(&self, a: Handle, b: Handle) -> Result<bool> {
        let mut equal = false;
        check_status!(unsafe { sys::napi_strict_equals(self.env, a, b, &mut equal) })?;
        Ok(equal)
    }

    pub fn global(&self) -> Result<Handle> {
        let mut global = ptr::null_mut();
        check_status!(unsafe { sys::napi_get_global(self.env, &mut global) })?;
        Ok(global)
    }

    /// `new Constructor()`.
    pub fn construct(&self, constructor: Handle) -> Result<Handle> {
        let mut instance = ptr::null_mut();
        check_status!(unsafe {
            sys::napi_new_instance(self.env, constructor, 0, ptr::null(), &mut instance)
        })?;
        Ok(instance)
    }
}

/// Building result values. Properties are set in the order given, which is
/// the order `Object.keys` and `JSON.stringify` report.
impl Js {
    pub fn object(&self, properties: &[(&CStr, Handle)]) -> Result<Handle> {
        let mut object = ptr::null_mut();
        check_status!(unsafe { sys::napi_create_object(self.env, &mut object) })?;
        for (name, value) in properties {
            self.set(object, name, *value)?;
        }
        Ok(object)
    }

    pub fn array(&self, items: &[Handle]) -> Result<Handle> {
        let mut array = ptr::null_mut();
        check_status!(unsafe { sys::napi_create_array_with_length(self.env, items.len(), &mut array) })?;
        for (i, item) in items.iter().enumerate() {
            check_status!(unsafe { sys::napi_set_element(self.env, array, i as u32, *item) })?;
        }
        Ok(array)
    }

    pub fn string(&self, units: &[u16]) -> Result<Handle> {
        let mut string = ptr::null_mut();
        check_status!(unsafe {
            sys::napi_create_string_utf16(self.env, units.as_ptr(), units.len() as isize, &mut string)
        })?;
        Ok(string)
    }

    pub fn str(&self, text: &str) -> Result<Handle> {
        let mut string = ptr::null_mut();
        check_status!(unsafe {
            sys::napi_create_string_utf8(self.env, text.as_ptr().cast(), text.len() as isize, &mut string)
        })?;
        Ok(string)
    }

    pub fn null(&self) -> Result<Handle> {
        let mut null = ptr::null_mut();
        check_status!(unsafe { sys::napi_get_null(self.env, &mut null) })?;
        Ok(null)
    }

    pub fn number(&self, value: f64) -> Result<Handle> {
        let mut number = ptr::null_mut();
        check_status!(unsafe { sys::napi_create_double(self.env, value, &mut number) })?;
        Ok(number)
    }

    pub fn boolean(&self, value: bool) -> Result<Handle> {
        let mut boolean = ptr::null_mut();
        check_status!(unsafe { sys::napi_get_boolean(self.env, value, &mut boolean) })?;
        Ok(boolean)
    }

    /// Hands a built value back to napi-rs as the function's return value.
    pub fn unknown<'env>(&self, value: Handle) -> napi::bindgen_prelude::Unknown<'env> {
        // SAFETY: `value` was created in this env during the current call.
        unsafe { napi::bindgen_prelude::Unknown::from_raw_unchecked(self.env, value) }
    }

    pub fn undefined(&self) -> Result<Handle> {
        let mut undefined = ptr::null_mut();
        check_status!(unsafe { sys::napi_get_undefined(self.env, &mut undefined) })?;
        Ok(undefined)
    }
}

/// JavaScript built-ins the binding calls, each with the receiver it is
/// looked up on.
#[derive(Clone, Copy)]
pub enum Builtin {
    ArrayIsArray,
    /// [`RECORD_ENTRIES`], built on this env's first use.
    RecordEntries,
}

/// `Array.isArray` and `Object.entries` in one call, for the args walk:
/// `null` for an array (a Proxy of one included), else the object's entries
/// flattened to `[key, value, key, value, …]`. One crossing instead of two,
/// and no pair array to read per entry; the reads and traps it runs are
/// exactly those of the two built-ins, in the same order. Every built-in it
/// uses is captured when it is built, and `Array.from` defines the elements
/// (no setter on `Array.prototype` can see them).
const RECORD_ENTRIES: &str = "(function (isArray, entries, from, apply, ArrayOf) {
  const unpair = (pairs) => (_, j) => pairs[j >> 1][j & 1];
  return function recordEntries(value) {
    if (isArray(value)) return null;
    const pairs = entries(value);
    return apply(from, ArrayOf, [{ length: pairs.length * 2 }, unpair(pairs)]);
  };
})(Array.isArray, Object.entries, Array.from, Reflect.apply, Array)";

/// `[Array, Array.isArray, globalThis, recordEntries]`, per env, held by napi references so that a call does not
/// look them up by name again (a named lookup from Rust costs a few hundred
/// nanoseconds). An env's entry is dropped by a cleanup hook when the env
/// goes away.
type BuiltinRefs = [sys::napi_ref; 4];

thread_local! {
    static BUILTINS: std::cell::RefCell<Vec<(usize, BuiltinRefs)>> = const { std::cell::RefCell::new(Vec::new()) };
}

unsafe extern "C" fn forget_builtins(env: *mut std::ffi::c_void) {
    BUILTINS.with(|builtins| builtins.borrow_mut().retain(|(known, _)| *known != env as usize));
}

impl Js {
    /// `(receiver, function)` of a built-in, as it was on this env's first
    /// use.
    pub fn builtin(&self, which: Builtin) -> Result<(Handle, Handle)> {
        let key = self.env as usize;
        let known = BUILTINS
            .with(|builtins| builtins.borrow().iter().find(|(env, _)| *env == key).map(|(_, refs)| *refs));
        let refs = match known {
            Some(refs) => refs,
            None => {
                let global = self.global()?;
                let array = self.get(global, c"Array")?;
                let mut record_entries = ptr::null_mut();
                check_status!(unsafe {
                    sys::napi_run_script(self.env, self.str(RECORD_ENTRIES)?, &mut record_entries)
                })?;
                let values = [array, self.get(array, c"isArray")?, global, record_entries];
                let mut refs: BuiltinRefs = [ptr::null_mut(); 4];
                for (slot, value) in refs.iter_mut().zip(values) {
                    check_status!(unsafe { sys::napi_create_reference(self.env, value, 1, slot) })?;
                }
                check_status!(unsafe {
                    sys::napi_add_env_cleanup_hook(self.env, Some(forget_builtins), self.env.cast())
                })?;
                BUILTINS.with(|builtins| builtins.borrow_mut().push((key, refs)));
                refs
            }
        };
        let (receiver, function) = match which {
            Builtin::ArrayIsArray => (refs[0], refs[1]),
            Builtin::RecordEntries => (refs[2], refs[3]),
        };
        Ok((self.referenced(receiver)?, self.referenced(function)?))
    }

    fn referenced(&self, reference: sys::napi_ref) -> Result<Handle> {
        let mut value = ptr::null_mut();
        check_status!(unsafe { sys::napi_get_reference_value(self.env, reference, &mut value) })?;
        Ok(value)
    }
}

/// `Array.isArray`, looked up once per call: unlike `napi_is_array` it sees
/// through a Proxy whose target is an array.
pub struct IsArray {
    js: Js,
    array_is_array: Option<(Handle, Handle)>,
}

impl IsArray {
    pub fn new(js: Js) -> Self {
        IsArray { js, array_is_array: None }
    }

    pub fn test(&mut self, value: Handle) -> Result<bool> {
        let js = self.js;
        if js.is_plain_array(value)? {
            return Ok(true);
        }
        if js.type_of(value)? != ValueType::Object {
            return Ok(false);
        }
        let (array, is_array) = match self.array_is_array {
            Some(found) => found,
            None => *self.array_is_array.insert(js.builtin(Builtin::ArrayIsArray)?),
        };
        js.bool(js.call(is_array, array, &[value])?)
    }

    /// The length of something `test` accepted: a genuine array's own
    /// length, or what a Proxy's `length` reads as a number, as `i < length`
    /// compares it.
    pub fn len(&self, list: Handle) -> Result<usize> {
        let js = self.js;
        if js.is_plain_array(list)? {
            return Ok(js.plain_array_len(list)? as usize);
        }
        let length = js.to_number(js.get(list, c"length")?)?;
        Ok(if length > 0.0 { length.ceil().min(u32::MAX as f64) as usize } else { 0 })
    }
}
