//! The few raw Node-API operations the binding needs, each checked.
//!
//! The checks read their arguments by hand, exactly as JavaScript reads
//! them, and build their answers in agentfootprint's key order, which
//! napi-rs's typed conversions cannot do (docs/design.md says why);
//! they do it on raw handles, through here. Every operation returns napi's
//! status as an error; when JavaScript threw (a getter, a Proxy trap), the
//! error is `PendingException` and the original exception is what reaches
//! the caller. Nothing here outlives the call it is used in.

use napi::{check_status, sys, Env, Error, Result, Status, ValueType};
use std::ffi::{CStr, CString};
use std::ptr;

pub type Handle = sys::napi_value;

/// The most UTF-16 units a string is first read onto the stack with.
const SHORT_UNITS: usize = 256;

#[derive(Clone, Copy)]
pub struct Js {
    env: sys::napi_env,
}

impl Js {
    pub fn new(env: &Env) -> Self {
        Js { env: env.raw() }
    }

    /// The napi-rs environment, for its own conversions.
    pub fn env(&self) -> Env {
        Env::from_raw(self.env)
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

    fn throw(
        &self,
        throw: unsafe fn(sys::napi_env, *const std::ffi::c_char, *const std::ffi::c_char) -> sys::napi_status,
        message: &str,
    ) -> Error {
        let message = CString::new(message.replace('\0', "\\0")).expect("no NUL left");
        // If throwing fails an exception is already pending; either way the
        // caller sees a JavaScript exception.
        // SAFETY: `throw` is one of napi's throw functions; `message` is a NUL-terminated string that lives to the end of the call, and a null code is allowed.
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
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
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
        let mut short = [0u16; SHORT_UNITS];
        if let Some(written) = self.read_short(string, &mut short)? {
            return Ok(short[..written].to_vec());
        }
        let mut units = Vec::new();
        self.utf16_into(string, &mut units)?;
        Ok(units)
    }

    /// Runs `body` with a string's UTF-16 code units, read onto the stack
    /// when the string is short (a streamed chunk usually is), so that no
    /// allocation is made for it.
    pub fn with_units<R>(&self, string: Handle, body: impl FnOnce(&[u16]) -> Result<R>) -> Result<R> {
        let mut short = [0u16; SHORT_UNITS];
        if let Some(written) = self.read_short(string, &mut short)? {
            return body(&short[..written]);
        }
        let mut units = Vec::new();
        self.utf16_into(string, &mut units)?;
        body(&units)
    }

    /// Reads a string onto `short` in one call, rather than asking its
    /// length first, as most strings read here are short (names, keys,
    /// argument values, chunks). Answers how many units it holds, or `None`
    /// when the string filled the buffer: napi ends what it writes with a
    /// NUL, so it may have been cut, and must be read again in full.
    fn read_short(&self, string: Handle, short: &mut [u16; SHORT_UNITS]) -> Result<Option<usize>> {
        let mut written = 0;
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope; `short` has room for the SHORT_UNITS units the call is told it may write.
        check_status!(unsafe {
            sys::napi_get_value_string_utf16(self.env, string, short.as_mut_ptr(), SHORT_UNITS, &mut written)
        })?;
        Ok((written < SHORT_UNITS - 1).then_some(written))
    }

    /// Reads a string's UTF-16 code units into `units`, replacing what it
    /// held, so that a caller reading many strings in one call allocates
    /// only when one outgrows the others.
    pub fn utf16_into(&self, string: Handle, units: &mut Vec<u16>) -> Result<()> {
        let length = self.string_len(string)?;
        units.clear();
        // napi writes a terminating NUL, so the buffer needs one unit more.
        units.reserve(length + 1);
        let mut written = 0;
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope; `units` has reserved `length + 1` units, the size the call is told, NUL included.
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
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope; a null buffer asks only for the length, written to a local.
        check_status!(unsafe {
            sys::napi_get_value_string_utf16(self.env, string, ptr::null_mut(), 0, &mut length)
        })?;
        Ok(length)
    }

    pub fn f64(&self, number: Handle) -> Result<f64> {
        let mut value = 0.0;
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_get_value_double(self.env, number, &mut value) })?;
        Ok(value)
    }

    pub fn bool(&self, boolean: Handle) -> Result<bool> {
        let mut value = false;
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_get_value_bool(self.env, boolean, &mut value) })?;
        Ok(value)
    }

    /// `ToNumber(value)`, running `valueOf` where JavaScript would.
    pub fn to_number(self, value: Handle) -> Result<f64> {
        let mut number = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_coerce_to_number(self.env, value, &mut number) })?;
        self.f64(number)
    }

    /// `object[name]`, running getters and Proxy traps.
    pub fn get(&self, object: Handle, name: &CStr) -> Result<Handle> {
        let mut value = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_get_named_property(self.env, object, name.as_ptr(), &mut value) })?;
        Ok(value)
    }

    /// `object[key]` for any key (a symbol, say), running getters and
    /// Proxy traps.
    pub fn property(&self, object: Handle, key: Handle) -> Result<Handle> {
        let mut value = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_get_property(self.env, object, key, &mut value) })?;
        Ok(value)
    }

    /// `Boolean(value)`, as `&&` and `!` read it.
    pub fn truthy(&self, value: Handle) -> Result<bool> {
        let mut boolean = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_coerce_to_bool(self.env, value, &mut boolean) })?;
        self.bool(boolean)
    }

    /// `object[index]`, running getters and Proxy traps.
    pub fn element(&self, object: Handle, index: u32) -> Result<Handle> {
        let mut value = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_get_element(self.env, object, index, &mut value) })?;
        Ok(value)
    }

    /// The object's own enumerable string keys, as `Object.keys` lists
    /// them (running a Proxy's traps).
    pub fn own_keys(&self, object: Handle) -> Result<Vec<Vec<u16>>> {
        let mut names = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
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

    /// Whether `value` is a genuine Array (not a Proxy of one).
    pub fn is_plain_array(&self, value: Handle) -> Result<bool> {
        let mut is_array = false;
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_is_array(self.env, value, &mut is_array) })?;
        Ok(is_array)
    }

    /// The length of a genuine Array.
    pub fn plain_array_len(&self, array: Handle) -> Result<u32> {
        let mut length = 0;
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_get_array_length(self.env, array, &mut length) })?;
        Ok(length)
    }

    pub fn call(&self, function: Handle, this: Handle, args: &[Handle]) -> Result<Handle> {
        let mut result = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope; `args` holds `args.len()` handles, the count passed.
        check_status!(unsafe {
            sys::napi_call_function(self.env, this, function, args.len(), args.as_ptr(), &mut result)
        })?;
        Ok(result)
    }

    pub fn strict_equals(&self, a: Handle, b: Handle) -> Result<bool> {
        let mut equal = false;
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_strict_equals(self.env, a, b, &mut equal) })?;
        Ok(equal)
    }

    /// `globalThis[name]`, looked up now.
    pub fn global(&self, name: &CStr) -> Result<Handle> {
        let mut global = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_get_global(self.env, &mut global) })?;
        self.get(global, name)
    }

    /// `globalThis[owner][name]` and its receiver, looked up now: the
    /// built-ins a call uses are read once per call, never kept.
    pub fn builtin(&self, owner: &CStr, name: &CStr) -> Result<(Handle, Handle)> {
        let receiver = self.global(owner)?;
        Ok((receiver, self.get(receiver, name)?))
    }

    /// Tells V8 that native memory tied to JavaScript objects grew (or,
    /// negative, shrank) by `change` bytes, so that it weighs that memory
    /// when it schedules collections.
    pub fn adjust_external_memory(&self, change: i64) -> Result<()> {
        let mut total = 0;
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_adjust_external_memory(self.env, change, &mut total) })?;
        Ok(())
    }

    /// `new Constructor(...args)`.
    pub fn construct(&self, constructor: Handle, args: &[Handle]) -> Result<Handle> {
        let mut instance = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope; `args` holds `args.len()` handles, the count passed.
        check_status!(unsafe {
            sys::napi_new_instance(self.env, constructor, args.len(), args.as_ptr(), &mut instance)
        })?;
        Ok(instance)
    }

    /// `value instanceof constructor`.
    pub fn instance_of(&self, value: Handle, constructor: Handle) -> Result<bool> {
        let mut is = false;
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_instanceof(self.env, value, constructor, &mut is) })?;
        Ok(is)
    }

    /// A new `ArrayBuffer` holding `bytes`, type-tagged with `tag`
    /// (`napi_type_tag_object`), so that [`tagged_bytes`](Self::tagged_bytes)
    /// can tell it from every buffer this addon did not make. It has no
    /// Node-API finalizer: V8 frees it as any other buffer.
    pub fn tagged_buffer(&self, tag: &sys::napi_type_tag, bytes: &[u8]) -> Result<Handle> {
        let mut data = ptr::null_mut();
        let mut buffer = ptr::null_mut();
        // SAFETY: a Node-API call on this call's env, writing to locals.
        check_status!(unsafe {
            sys::napi_create_arraybuffer(self.env, bytes.len(), &mut data, &mut buffer)
        })?;
        if !bytes.is_empty() {
            // SAFETY: napi allocated `bytes.len()` bytes at `data` for the new
            // buffer, which no JavaScript has seen yet.
            unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), data.cast::<u8>(), bytes.len()) };
        }
        // SAFETY: `buffer` is a handle of this call's scope; `tag` outlives the call.
        check_status!(unsafe { sys::napi_type_tag_object(self.env, buffer, tag) })?;
        Ok(buffer)
    }

    /// Where the bytes of `value` are, when it is an `ArrayBuffer` tagged
    /// with `tag` that holds at least `len` of them (a detached one holds
    /// none); `None` for any other value. The address is good until
    /// JavaScript runs again (which could detach the buffer).
    pub fn tagged_bytes(
        &self,
        value: Handle,
        tag: &sys::napi_type_tag,
        len: usize,
    ) -> Result<Option<*mut u8>> {
        if self.type_of(value)? != ValueType::Object {
            return Ok(None);
        }
        let mut is_buffer = false;
        // SAFETY: a Node-API call on this call's env, with a handle of this
        // call's scope, writing to a local.
        check_status!(unsafe { sys::napi_is_arraybuffer(self.env, value, &mut is_buffer) })?;
        if !is_buffer {
            return Ok(None);
        }
        let mut tagged = false;
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_check_object_type_tag(self.env, value, tag, &mut tagged) })?;
        if !tagged {
            return Ok(None);
        }
        let mut data = ptr::null_mut();
        let mut length = 0;
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_get_arraybuffer_info(self.env, value, &mut data, &mut length) })?;
        Ok((!data.is_null() && length >= len).then_some(data.cast::<u8>()))
    }
}

/// Building answers. An object's properties are defined in one call, in
/// the order given, which is the order `Object.keys` and `JSON.stringify`
/// report; each is a plain data property, as an object literal's would be.
impl Js {
    pub fn object(&self, properties: &[(&CStr, Handle)]) -> Result<Handle> {
        let mut object = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_create_object(self.env, &mut object) })?;
        let descriptors: Vec<sys::napi_property_descriptor> = properties
            .iter()
            .map(|(name, value)| sys::napi_property_descriptor {
                utf8name: name.as_ptr(),
                name: ptr::null_mut(),
                method: None,
                getter: None,
                setter: None,
                value: *value,
                attributes: sys::PropertyAttributes::writable
                    | sys::PropertyAttributes::enumerable
                    | sys::PropertyAttributes::configurable,
                data: ptr::null_mut(),
            })
            .collect();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope; each descriptor's name points into a `CStr` the caller holds for the call, and `descriptors` holds the count passed.
        check_status!(unsafe {
            sys::napi_define_properties(self.env, object, descriptors.len(), descriptors.as_ptr())
        })?;
        Ok(object)
    }

    pub fn array(&self, items: &[Handle]) -> Result<Handle> {
        let mut array = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope; `i` is below the length the array was made with.
        check_status!(unsafe { sys::napi_create_array_with_length(self.env, items.len(), &mut array) })?;
        for (i, item) in items.iter().enumerate() {
            // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope; `i` is below the length the array was made with.
            check_status!(unsafe { sys::napi_set_element(self.env, array, i as u32, *item) })?;
        }
        Ok(array)
    }

    pub fn string(&self, units: &[u16]) -> Result<Handle> {
        let mut string = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope; `units` is a live slice of the length passed (JavaScript strings are far shorter than isize::MAX).
        check_status!(unsafe {
            sys::napi_create_string_utf16(self.env, units.as_ptr(), units.len() as isize, &mut string)
        })?;
        Ok(string)
    }

    pub fn str(&self, text: &str) -> Result<Handle> {
        let mut string = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope; `text` is live UTF-8 of the length passed.
        check_status!(unsafe {
            sys::napi_create_string_utf8(self.env, text.as_ptr().cast(), text.len() as isize, &mut string)
        })?;
        Ok(string)
    }

    pub fn number(&self, value: f64) -> Result<Handle> {
        let mut number = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_create_double(self.env, value, &mut number) })?;
        Ok(number)
    }

    pub fn boolean(&self, value: bool) -> Result<Handle> {
        let mut boolean = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_get_boolean(self.env, value, &mut boolean) })?;
        Ok(boolean)
    }

    /// Defines `key` on `object` as an own, enumerable data property, as
    /// `JSON.parse` does (so a `"__proto__"` key is a key, not a prototype).
    pub fn define(&self, object: Handle, key: Handle, value: Handle) -> Result<()> {
        let descriptor = sys::napi_property_descriptor {
            utf8name: ptr::null(),
            name: key,
            method: None,
            getter: None,
            setter: None,
            value,
            attributes: sys::PropertyAttributes::writable
                | sys::PropertyAttributes::enumerable
                | sys::PropertyAttributes::configurable,
            data: ptr::null_mut(),
        };
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope; the one descriptor names its key by handle and lives on this stack frame.
        check_status!(unsafe { sys::napi_define_properties(self.env, object, 1, &descriptor) })
    }

    pub fn null(&self) -> Result<Handle> {
        let mut null = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_get_null(self.env, &mut null) })?;
        Ok(null)
    }

    pub fn undefined(&self) -> Result<Handle> {
        let mut undefined = ptr::null_mut();
        // SAFETY: a Node-API call on the env of the callback now running (`Js` never outlives it), with handles of this call's scope, writing only to a local out-parameter.
        check_status!(unsafe { sys::napi_get_undefined(self.env, &mut undefined) })?;
        Ok(undefined)
    }

    /// Hands a built value back to napi-rs as the function's return value.
    pub fn unknown<'env>(&self, value: Handle) -> napi::bindgen_prelude::Unknown<'env> {
        // SAFETY: `value` was created in this env during the current call.
        unsafe { napi::bindgen_prelude::Unknown::from_raw_unchecked(self.env, value) }
    }
}

/// `Array.isArray`, looked up the first time a call needs it: unlike
/// `napi_is_array` it sees through a Proxy whose target is an array.
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
            None => *self.array_is_array.insert(js.builtin(c"Array", c"isArray")?),
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
