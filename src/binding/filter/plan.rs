//! What a filter's options compile to: the patterns as a registry, the
//! tools, the core's options. Options are read by hand, so that every bad
//! value is a JavaScript error naming it (`options.patterns[2].end`).

use std::ffi::CStr;
use std::num::NonZeroUsize;
use std::sync::Arc;

use crate::binding::napi::{Handle, IsArray, Js};
use napi::bindgen_prelude::*;
use napi::{Env, Unknown, ValueType};
use napi_derive::napi;

use crate::filter::{self as scaffolding, Part, Pattern, RegexSource, Registry};

/// A pattern list checked and compiled once, to share among filters:
/// `new ScaffoldingFilter({ patterns: registry })`. Compiling costs the
/// most for regular expressions (the union of every preset takes about
/// 10 ms), so a server that builds a filter per response builds its
/// registry once. It holds only the compiled patterns, never any text, and
/// is immutable.
#[napi]
pub struct ScaffoldRegistry {
    registry: Arc<Registry>,
}

#[napi]
impl ScaffoldRegistry {
    /// Checks and compiles `patterns`, with the errors
    /// `new ScaffoldingFilter({ patterns })` would throw.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "patterns: ReadonlyArray<ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall>"
    )]
    pub fn new(env: &Env, patterns: Unknown) -> Result<Self> {
        let registry = read_patterns(Js::new(env), patterns.raw(), "ScaffoldRegistry: patterns", "")?;
        Ok(ScaffoldRegistry { registry: Arc::new(registry) })
    }

    /// Whether filters built from it run exactly as the reference filter
    /// does, feed by feed: a list of literal spans and tokens that can never
    /// overlap, as the default. Any other list gives the same output for
    /// every chunking instead.
    #[napi(getter, catch_unwind)]
    pub fn runs_as_reference(&self) -> bool {
        self.registry.is_literal()
    }

    /// How many patterns it holds. (Not `length`: an array has one, and the
    /// typings must tell a registry from a list.)
    #[napi(getter, catch_unwind)]
    pub fn size(&self) -> u32 {
        self.registry.patterns().len() as u32
    }
}

/// What a filter's options compile to: everything a stream needs,
/// checked and built once and shared by every stream opened from it. It
/// holds no JavaScript value: `onStrip` stays with the JavaScript object
/// that holds the plan (lib/filter/scaffolding-filter.cjs), where the garbage
/// collector can see it. (A Node-API reference to it from here would be a
/// root the collector cannot see through, so a callback that closes over
/// its own plan, as a middleware's does, would keep both forever.)
pub(super) struct Plan {
    registry: Arc<Registry>,
    options: scaffolding::Options,
    /// Compiled (`Tools::new`) once; `None` when none were given.
    tools: Option<Arc<scaffolding::Tools>>,
    /// Whether the options have an `onStrip`: then each stream hands back
    /// an event for each strip.
    pub(super) reports: bool,
}

impl Plan {
    /// A new stream's core filter.
    pub(super) fn filter(&self) -> scaffolding::ScaffoldingFilter {
        scaffolding::ScaffoldingFilter::with_tools(
            Arc::clone(&self.registry),
            self.options,
            self.tools.clone(),
        )
    }

    /// Every unit a strip can begin with (`ScaffoldingFilter::start_units`);
    /// `None` when no set of units decides.
    fn start_units(&self) -> Option<Vec<u16>> {
        let with_tools = self.tools.as_ref().is_some_and(|tools| !tools.is_empty());
        scaffolding::ScaffoldingFilter::start_units_of(&self.registry, self.options, with_tools)
    }
}

/// A new stream's core filter for the plan `value` holds (an `External`
/// that `compile` made), and whether it reports its strips; `who` names
/// the caller in the error for a value that is no plan.
pub(super) fn open_plan(js: Js, value: Handle, who: &str) -> Result<(scaffolding::ScaffoldingFilter, bool)> {
    // SAFETY: `value` is a live handle of this call's scope. The conversion
    // takes only an `External` that napi-rs made in this addon for a `Plan`
    // (it checks its own registry of them before it reads one), and the
    // `Plan` lives as long as its `External`, which the caller holds for
    // the whole call.
    let plan = unsafe { External::<Plan>::from_napi_ref(js.env().raw(), value) }
        .map_err(|_| js.type_error(&format!("{who}: the plan is not a plan of this addon")))?;
    Ok((plan.filter(), plan.reports))
}

/// Checks and compiles a filter's options once: `[plan, startUnits,
/// onStrip]` (see `with_parts`), the plan an opaque `External`. `who` is
/// the class whose constructor was called, and names the options in errors
/// (`ScaffoldingFilter: options.patterns[2].end`).
#[napi(namespace = "__scaffoldingFilter", js_name = "compile", skip_typescript, catch_unwind)]
pub fn compile<'env>(env: &'env Env, options: Unknown<'env>, who: String) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let (plan, on_strip) = read_options(js, options.raw(), &who)?;
    let start_units = start_units_of(js, &plan)?;
    // An `External`, not a class instance: JavaScript sees only an opaque
    // value, which `FilterPlan` keeps private.
    let plan = External::new(plan).into_unknown(env)?.raw();
    Ok(js.unknown(with_parts(js, plan, start_units, on_strip)?))
}

/// `plan`'s start units as JavaScript keeps them: a string, or `null` when
/// no set of units decides (tool-aware detection, a tidy filter).
pub(super) fn start_units_of(js: Js, plan: &Plan) -> Result<Handle> {
    match plan.start_units() {
        Some(units) => js.string(&units),
        None => js.null(),
    }
}

/// `[first, startUnits, onStrip]`: `first` (a plan, or a stream opened
/// from one) with what JavaScript keeps beside it, `onStrip` the callback
/// or `undefined`.
pub(super) fn with_parts(
    js: Js,
    first: Handle,
    start_units: Handle,
    on_strip: Option<Handle>,
) -> Result<Handle> {
    let on_strip = match on_strip {
        Some(on_strip) => on_strip,
        None => js.undefined()?,
    };
    js.array(&[first, start_units, on_strip])
}

/// A bad tool list, named as `who`'s options.
fn tools_error(js: Js, who: &str, error: &scaffolding::ToolsError) -> Error {
    js.type_error(&format!("{who}: options.tools[{}]: {}", error.tool, error.reason))
}

const OPTION_NAMES: [&str; 6] =
    ["patterns", "tools", "openSpanAtEnd", "onStrip", "maxHeld", "tidyWhitespace"];

/// Reads and compiles a filter's options, naming the first bad value in a
/// JavaScript error that begins with `who`; returns the plan and `onStrip`.
pub(super) fn read_options(js: Js, options: Handle, who: &str) -> Result<(Plan, Option<Handle>)> {
    let mut plan = Plan {
        registry: Registry::of_defaults(),
        options: scaffolding::Options::default(),
        tools: None,
        reports: false,
    };
    match js.type_of(options)? {
        ValueType::Undefined => return Ok((plan, None)),
        ValueType::Object if IsArray::new(js).test(options)? => {
            return Err(js.type_error(&format!("{who}: options must be an object (got an array)")))
        }
        ValueType::Object if ScaffoldRegistry::instance_of(&js.env(), &js.unknown(options))? => {
            return Err(js.type_error(&format!(
                "{who}: options must be an object (got a ScaffoldRegistry, which goes in options.patterns)"
            )))
        }
        ValueType::Object => {}
        _ => return Err(js.wrong_type(&format!("{who}: options"), "an object", options)),
    }
    for key in js.own_keys(options)? {
        let key = String::from_utf16_lossy(&key);
        if !OPTION_NAMES.contains(&key.as_str()) {
            return Err(js.type_error(&format!(
                "{who}: options.{} is not an option (the options are {})",
                clip(&key),
                OPTION_NAMES.join(", ")
            )));
        }
    }
    let given = |value: Handle| -> Result<bool> { Ok(js.type_of(value)? != ValueType::Undefined) };

    let patterns = js.get(options, c"patterns")?;
    if given(patterns)? {
        plan.registry = match compiled_registry(js, patterns, who)? {
            Some(registry) => registry,
            None => Arc::new(read_patterns(
                js,
                patterns,
                &format!("{who}: options.patterns"),
                " (leave it out for the default patterns)",
            )?),
        };
    }

    let tools = js.get(options, c"tools")?;
    if given(tools)? {
        let (tools, _) = read_tool_list(js, tools, &format!("{who}: options.tools"))?;
        let tools = scaffolding::Tools::new(tools).map_err(|error| tools_error(js, who, &error))?;
        plan.tools = Some(Arc::new(tools));
    }

    let policy = js.get(options, c"openSpanAtEnd")?;
    if given(policy)? {
        let what = format!("{who}: options.openSpanAtEnd");
        if js.type_of(policy)? != ValueType::String {
            return Err(js.wrong_type(&what, "'emit' or 'drop'", policy));
        }
        plan.options.open_span_at_end = match String::from_utf16_lossy(&js.utf16(policy)?).as_str() {
            "emit" => scaffolding::OpenSpanPolicy::Emit,
            "drop" => scaffolding::OpenSpanPolicy::Drop,
            other => {
                return Err(js.type_error(&format!("{what} must be 'emit' or 'drop' (got '{}')", clip(other))))
            }
        };
    }

    let on_strip = js.get(options, c"onStrip")?;
    let on_strip = if given(on_strip)? {
        if js.type_of(on_strip)? != ValueType::Function {
            return Err(js.wrong_type(&format!("{who}: options.onStrip"), "a function", on_strip));
        }
        plan.reports = true;
        Some(on_strip)
    } else {
        None
    };

    let tidy = js.get(options, c"tidyWhitespace")?;
    if given(tidy)? {
        if js.type_of(tidy)? != ValueType::Boolean {
            return Err(js.wrong_type(&format!("{who}: options.tidyWhitespace"), "a boolean", tidy));
        }
        plan.options.tidy_whitespace = js.bool(tidy)?;
    }

    let max_held = js.get(options, c"maxHeld")?;
    if given(max_held)? {
        let what = format!("{who}: options.maxHeld");
        if js.type_of(max_held)? != ValueType::Number {
            return Err(js.wrong_type(&what, "a positive integer", max_held));
        }
        let most = js.f64(max_held)?;
        if !(most.is_finite() && most >= 1.0 && most.fract() == 0.0) {
            return Err(
                js.range_error(&format!("{what} must be a positive integer (got {})", js_number(most)))
            );
        }
        // Past usize::MAX (on a 32-bit machine) the bound is as good as none.
        plan.options.max_held = NonZeroUsize::new(most.min(usize::MAX as f64) as usize);
    }
    Ok((plan, on_strip))
}

const PATTERN_FIELDS: [&str; 6] = ["token", "regex", "start", "end", "json", "jsonCall"];

/// The registry of a `ScaffoldRegistry` given as `patterns`, shared.
fn compiled_registry(js: Js, value: Handle, who: &str) -> Result<Option<Arc<Registry>>> {
    let env = js.env();
    if !ScaffoldRegistry::instance_of(&env, &js.unknown(value))? {
        return Ok(None);
    }
    // SAFETY: `value` is a live handle of this call's scope; the conversion
    // checks napi-rs's own type tag before it reads the native object.
    let instance =
        unsafe { ClassInstance::<ScaffoldRegistry>::from_napi_value(env.raw(), value) }.map_err(|_| {
            js.type_error(&format!(
                "{who}: options.patterns claims to be a ScaffoldRegistry but was not made by its constructor"
            ))
        })?;
    Ok(Some(Arc::clone(&instance.registry)))
}

/// A tool as `options.tools` takes it: its name, or `{ name, parameters }`.
fn tool_to_js(js: Js, tool: &scaffolding::Tool) -> Result<Handle> {
    match &tool.parameters {
        None => js.string(&tool.name),
        Some(parameters) => {
            let names = parameters.iter().map(|name| js.string(name)).collect::<Result<Vec<_>>>()?;
            js.object(&[(c"name", js.string(&tool.name)?), (c"parameters", js.array(&names)?)])
        }
    }
}

/// The tools of `tools` that tool-aware detection can use, and what it
/// leaves out: lenient where `new ScaffoldingFilter({ tools })` is strict,
/// for a list from elsewhere (an MCP server, a framework's tool list).
/// `tools` has the shape of `ScaffoldingFilterOptions.tools`, and so has
/// the `tools` of the answer. A tool whose name is empty, longer than 256
/// UTF-16 code units or holds a line break is left out, and so is a tool
/// with the name of an earlier one (the first is kept); a tool with an
/// empty parameter name is kept without it. Each is reported once in
/// `skipped`. A name in any script is usable. A list the filter would take
/// comes back whole, its entries the very values given, with nothing
/// skipped. Throws a `TypeError` naming the argument or the entry when
/// `tools` is not such a list (an entry that is neither a string nor a
/// `{ name, parameters? }` object, a name or parameter that is no string).
#[napi(
    catch_unwind,
    ts_args_type = "tools: ReadonlyArray<string | ScaffoldTool>",
    ts_return_type = "UsableTools"
)]
pub fn usable_tools<'env>(env: &'env Env, tools: Unknown<'env>) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let (tools, entries) = read_tool_list(js, tools.raw(), "usableTools: tools")?;
    let usable = scaffolding::usable_tools(tools);
    let mut trimmed = usable
        .skipped
        .iter()
        .filter(|skipped| !skipped.reason.drops_tool())
        .map(|skipped| skipped.index)
        .peekable();
    let mut kept = Vec::with_capacity(usable.tools.len());
    for (tool, &index) in usable.tools.iter().zip(&usable.from) {
        kept.push(match trimmed.next_if_eq(&index) {
            Some(_) => tool_to_js(js, tool)?,
            None => entries[index],
        });
    }
    let skipped = usable
        .skipped
        .iter()
        .map(|skipped| {
            js.object(&[
                (c"index", js.number(skipped.index as f64)?),
                (c"name", js.string(&skipped.name)?),
                (c"reason", js.str(skipped.reason.as_str())?),
            ])
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(js.unknown(js.object(&[(c"tools", js.array(&kept)?), (c"skipped", js.array(&skipped)?)])?))
}

/// A tool list as `options.tools` takes it, whatever its names, and the
/// entries it was read from; `what` names the list in errors.
fn read_tool_list(js: Js, list: Handle, what: &str) -> Result<(Vec<scaffolding::Tool>, Vec<Handle>)> {
    let shapes = "an array of tool names or { name, parameters? } objects";
    let mut is_array = IsArray::new(js);
    if !is_array.test(list)? {
        return Err(js.wrong_type(what, shapes, list));
    }
    let count = is_array.len(list)?;
    let mut tools = Vec::with_capacity(count);
    let mut entries = Vec::with_capacity(count);
    for index in 0..count {
        let entry = js.element(list, index as u32)?;
        // (Named only for an error: a list is read at every stream open.)
        let at = || format!("{what}[{index}]");
        let tool = match js.type_of(entry)? {
            ValueType::String => scaffolding::Tool { name: js.utf16(entry)?, parameters: None },
            ValueType::Object if !is_array.test(entry)? => {
                for key in js.own_keys(entry)? {
                    let key = String::from_utf16_lossy(&key);
                    if key != "name" && key != "parameters" {
                        return Err(js.type_error(&format!(
                            "{}.{} is not a tool field (the fields are name, parameters)",
                            at(),
                            clip(&key)
                        )));
                    }
                }
                let name = js.get(entry, c"name")?;
                if js.type_of(name)? != ValueType::String {
                    return Err(js.wrong_type(&format!("{}.name", at()), "a string", name));
                }
                let parameters = js.get(entry, c"parameters")?;
                let parameters = match js.type_of(parameters)? {
                    ValueType::Undefined => None,
                    _ if is_array.test(parameters)? => {
                        let mut names = Vec::new();
                        for p in 0..is_array.len(parameters)? {
                            let parameter = js.element(parameters, p as u32)?;
                            if js.type_of(parameter)? != ValueType::String {
                                return Err(js.wrong_type(
                                    &format!("{}.parameters[{p}]", at()),
                                    "a string",
                                    parameter,
                                ));
                            }
                            names.push(js.utf16(parameter)?);
                        }
                        Some(names)
                    }
                    _ => {
                        return Err(js.wrong_type(
                            &format!("{}.parameters", at()),
                            "an array of parameter names",
                            parameters,
                        ))
                    }
                };
                scaffolding::Tool { name: js.utf16(name)?, parameters }
            }
            _ => return Err(js.wrong_type(&at(), "a tool name or a { name, parameters? } object", entry)),
        };
        tools.push(tool);
        entries.push(entry);
    }
    Ok((tools, entries))
}

/// A non-empty array of pattern entries that together make a registry;
/// `what` names the array in errors, and `if_empty` is advice for an empty
/// one.
fn read_patterns(js: Js, list: Handle, what: &str, if_empty: &str) -> Result<Registry> {
    let mut is_array = IsArray::new(js);
    if !is_array.test(list)? {
        return Err(js.wrong_type(what, "an array of pattern entries", list));
    }
    let count = is_array.len(list)?;
    if count == 0 {
        return Err(js.type_error(&format!("{what} is empty, so the filter would strip nothing{if_empty}")));
    }
    let regexp = js.global(c"RegExp")?;
    let mut patterns = Vec::with_capacity(count);
    for index in 0..count {
        let entry = js.element(list, index as u32)?;
        patterns.push(read_pattern(js, &mut is_array, regexp, entry, &format!("{what}[{index}]"))?);
    }
    Registry::new(patterns)
        .map_err(|error| js.type_error(&format!("{what}[{}] cannot be used: {}", error.entry, error.reason)))
}

/// One entry: `{ token }`, `{ regex }`, `{ start, end }`, `{ start, json:
/// true }` or `{ jsonCall }`.
fn read_pattern(
    js: Js,
    is_array: &mut IsArray,
    regexp: Handle,
    entry: Handle,
    what: &str,
) -> Result<Pattern> {
    let shapes = "{ token }, { regex }, { start, end }, { start, json: true } or { jsonCall }";
    if js.type_of(entry)? != ValueType::Object || is_array.test(entry)? || js.instance_of(entry, regexp)? {
        return Err(js.wrong_type(what, &format!("a pattern entry ({shapes})"), entry));
    }
    for key in js.own_keys(entry)? {
        let key = String::from_utf16_lossy(&key);
        if !PATTERN_FIELDS.contains(&key.as_str()) {
            return Err(js.type_error(&format!(
                "{what}.{} is not a pattern field (the fields are {})",
                clip(&key),
                PATTERN_FIELDS.join(", ")
            )));
        }
    }
    // A string is a literal, except for `regex`, where it is a source.
    let part = |name: &CStr, field: &str| -> Result<Option<Part>> {
        let value = js.get(entry, name)?;
        match js.type_of(value)? {
            ValueType::Undefined => Ok(None),
            ValueType::String if field == "regex" => {
                Ok(Some(Part::Regex(RegexSource::new(&String::from_utf16_lossy(&js.utf16(value)?)))))
            }
            ValueType::String => Ok(Some(Part::Literal(js.utf16(value)?))),
            ValueType::Object if js.instance_of(value, regexp)? => {
                let text = |name: &CStr| -> Result<String> {
                    Ok(String::from_utf16_lossy(&js.utf16(js.get(value, name)?)?))
                };
                let regex = RegexSource::with_js_flags(&text(c"source")?, &text(c"flags")?)
                    .map_err(|reason| js.type_error(&format!("{what}.{field}: {reason}")))?;
                Ok(Some(Part::Regex(regex)))
            }
            _ => Err(js.wrong_type(&format!("{what}.{field}"), "a string or a RegExp", value)),
        }
    };
    let token = part(c"token", "token")?;
    let regex = part(c"regex", "regex")?;
    let start = part(c"start", "start")?;
    let end = part(c"end", "end")?;
    let json = js.get(entry, c"json")?;
    let json = match js.type_of(json)? {
        ValueType::Undefined => false,
        ValueType::Boolean if js.bool(json)? => true,
        _ => return Err(js.wrong_type(&format!("{what}.json"), "true", json)),
    };
    let json_call = js.get(entry, c"jsonCall")?;
    let json_call = match js.type_of(json_call)? {
        ValueType::Undefined => None,
        ValueType::Object if !is_array.test(json_call)? => {
            Some(read_json_call(js, is_array, json_call, what)?)
        }
        _ => {
            return Err(js.wrong_type(
                &format!("{what}.jsonCall"),
                "an object ({} or { toolNames })",
                json_call,
            ))
        }
    };
    let given: Vec<&str> = [
        ("token", token.is_some()),
        ("regex", regex.is_some()),
        ("start", start.is_some()),
        ("end", end.is_some()),
        ("json", json),
        ("jsonCall", json_call.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, is)| is.then_some(name))
    .collect();
    Ok(match (token, regex, start, end, json, json_call) {
        (Some(token), None, None, None, false, None) => Pattern::token_of(token),
        (None, Some(Part::Regex(regex)), None, None, false, None) => Pattern::Regex { regex },
        (None, None, Some(start), Some(end), false, None) => Pattern::span_of(start, end),
        (None, None, Some(start), None, true, None) => Pattern::Json { start },
        (None, None, None, None, false, Some(tool_names)) => Pattern::JsonCall { tool_names },
        (None, None, Some(_), None, false, None) => {
            return Err(js.type_error(&format!("{what} has a start but no end (or json: true)")))
        }
        (None, None, None, Some(_), false, None) => {
            return Err(js.type_error(&format!("{what} has an end but no start")))
        }
        _ if given.is_empty() => {
            return Err(
                js.type_error(&format!("{what} must be one of {shapes} (it has none of their fields)"))
            )
        }
        _ => {
            return Err(
                js.type_error(&format!("{what} must be one of {shapes} (it has {})", given.join(", ")))
            )
        }
    })
}

/// `jsonCall`'s options: `{}` or `{ toolNames: [...] }`.
fn read_json_call(
    js: Js,
    is_array: &mut IsArray,
    options: Handle,
    what: &str,
) -> Result<Option<Vec<String>>> {
    for key in js.own_keys(options)? {
        let key = String::from_utf16_lossy(&key);
        if key != "toolNames" {
            return Err(js.type_error(&format!(
                "{what}.jsonCall.{} is not an option (the option is toolNames)",
                clip(&key)
            )));
        }
    }
    let names = js.get(options, c"toolNames")?;
    if js.type_of(names)? == ValueType::Undefined {
        return Ok(None);
    }
    let field = format!("{what}.jsonCall.toolNames");
    if !is_array.test(names)? {
        return Err(js.wrong_type(&field, "an array of strings", names));
    }
    let count = is_array.len(names)?;
    let mut tool_names = Vec::with_capacity(count);
    for index in 0..count {
        let name = js.element(names, index as u32)?;
        if js.type_of(name)? != ValueType::String {
            return Err(js.wrong_type(&format!("{field}[{index}]"), "a string", name));
        }
        tool_names.push(String::from_utf16_lossy(&js.utf16(name)?));
    }
    Ok(Some(tool_names))
}

/// At most 40 characters of a user's string, for an error message.
fn clip(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// A number as JavaScript writes it, for the cases an error can show.
fn js_number(value: f64) -> String {
    match value {
        f64::INFINITY => "Infinity".into(),
        f64::NEG_INFINITY => "-Infinity".into(),
        _ if value.is_nan() => "NaN".into(),
        _ => format!("{value}"),
    }
}
