//! Tool-aware detection: a leaked call to one of the offered tools, found by
//! the tool's name in whatever markup carries it.
//!
//! A preset knows one family's markup. What every leaked call shares is that
//! it names a tool the model was offered, in a place where a call's name
//! goes, with its arguments next to it, inside whatever wrapper the family
//! uses. This stage reads exactly that:
//!
//! ```text
//! leak    = lead? opener* head args (separator opener* head args)* closer* stray*
//! lead    = word to= | word:            (at a line's start, a channel word before a distinctive
//!                                        head: `commentary to=functions.NAME`, `Lie:default_api:NAME`)
//!         | word\n                      (a lone lowercase word line before a tag head: `court`)
//! opener  = <|token|> | <｜token｜> | <|token> | <token|>       (special tokens: strong)
//!         | <tag …> | <｜NS｜tag …> | [MARKER]                (no HTML element: strong when the
//!                                                             name holds `tool` or `call`, else weak)
//!         | [                                                 (a list: bracket)
//!         | ```info\n                   (strong when the info holds `tool`, `call` or
//!                                        `function`; else it must hold a JSON call and no more)
//!         | word<|token|> | word: | word to=                  (after a wrapper only)
//! head    = <NAME …>args</NAME> | <tag … name="NAME" …>args</tag> | <tag=NAME>args</tag>
//!         | a JSON object or array of call objects naming NAME (straight or curly quotes)
//!         | {tool => "NAME", args => …}                       (strong only)
//!         | functions.NAME | to=functions.NAME | default_api:NAME | NAME[ARGS]  (distinctive)
//!         | NAME.call | NAME                                  (bare)
//! args    = JSON object (or a loose one, `{key:<|"|>v<|"|>}`, `{key:"v"}`; kept raw if it
//!           does not parse) | (pythonic, `k=v` or `k: v`)
//!         | <key>v</key>… | <parameter=k>v</parameter>… | <parameter name="k" string="true">v</parameter>…
//!         | <arg_key>k</arg_key><arg_value>v</arg_value>…    (the list ends at whatever is no pair)
//! gap     = between a bare name and its arguments: space, `:0`, special tokens, markers,
//!           a ```json fence, up to two short lowercase words (`commentary json`), and
//!           after a distinctive head a run of stray non-ASCII (a garbled stream's)
//! closer  = </tag> (or <end_X> for <start_X>) for each tag opened, ], [/MARKER],
//!           ``` for a fence (required), any special token
//! stray   = a special token, or a closing tag whose name holds `tool` or `call`,
//!           that nothing opened; under `openSpanAtEnd: 'drop'`, one the end cut off
//! ```
//!
//! A leak's calls are read out: the tool (its index in the list) and the
//! arguments as JSON (a parameter tag's text is JSON when it parses as a
//! number, boolean, null, object or array, else a string with one line break
//! trimmed at each end; `string="true"` keeps it a string), or the raw text
//! when they do not parse.
//!
//! A name is compared unit for unit, in any script: `<météo>…</météo>` is a
//! tag head for an offered `météo` (a tag's own name goes beyond ASCII, or
//! past 64 units, only as an offered tool's), and a JSON call's name is
//! read with its escapes, so `m\u00e9t\u00e9o` and a lone `\ud800`, raw or
//! escaped, name the tool they spell.
//!
//! # Precision: what keeps a clean answer clean
//!
//! Changing a user's code or document is worse than missing a leak, so where
//! a text could be either, it is left alone:
//!
//! - A head must name an offered tool exactly, in a name position: the tag's
//!   own name, its `name` (`tool`, `tool_name`, `function`, `toolName`)
//!   attribute or its `<tag=NAME>` value, a JSON call's name key, or a bare
//!   name at a word's start. Every other attribute of a tag head must be a
//!   call's (`id`, `type`, `index`, `call_id`, `tool_call_id`), so an XML
//!   element that merely has a `name` (BPEL's `<invoke name="…"
//!   partnerLink="…">`, JasperReports' `<parameter name="…" class="…"/>`) is
//!   not a call, and neither is an HTML element named by attribute
//!   (`<select name="…">`). A tag head's body must be arguments and nothing
//!   else; an empty one is a call only inside a strong wrapper.
//! - A tool's definition is not a call: a JSON object with a key outside a
//!   call's vocabulary (`description`, `model`, `version`, …), arguments that
//!   are a JSON Schema (both `type` and `properties`), a tag head whose body
//!   has a `<description>` element.
//! - A JSON call with no wrapper around it must begin its line (after
//!   indentation) or follow another leak: a call-shaped object inside a
//!   sentence is prose.
//! - Wrappers come in strengths, and a bare `NAME` needs one: JSON or
//!   parameter-tag arguments at least a weak wrapper; pythonic `NAME(…)` at
//!   least a list bracket, with arguments that parse unless the wrapper is
//!   strong; no arguments at all (`<tool_call>NAME</tool_call>`) a strong one.
//!   A special token right after the name also makes it a call
//!   (`NAME:0<|…|>{…}`, a section whose opener was lost). So DocBook's
//!   `<function>sprintf</function>` and `<parameter>fd</parameter>`, prose's
//!   `get_weather(city)` and `[search]` stay text. A list bracket or a marker
//!   that names no tool or call counts as a wrapper only at a line's start:
//!   `see [get_weather(city="x")]` and `[NOTE] get_weather(city="x")` in a
//!   sentence are prose.
//! - A fenced code block (a fence at a line's start, after indentation) is
//!   code. It is a leak only when the whole block is: a fence named for tools
//!   (` ```tool_call `) around calls, or any other fence around JSON calls and
//!   nothing else, up to the closing fence. Otherwise nothing in the block is
//!   read until its closing fence (a line of at least as many backticks and
//!   nothing else), so a Python, shell, XML or text sample that shows or even
//!   makes a call is left as it is. The rule's one ambiguity: a document that
//!   shows a bare JSON call to an offered tool alone in its own fence reads
//!   exactly as a leaked fenced call (the shape Qwen2.5-Coder and Llama 3.2
//!   leak), and is stripped.
//! - Inline code is code: nothing is tried after an odd number of backticks
//!   on its line. A list bracket followed by `(` is a markdown link's text.
//! - The lead words are taken only at a line's start: a channel word before
//!   `to=functions.` (or glued by `:` to a distinctive head), and a lone
//!   lowercase word of 2 to 16 letters alone on its line when the next line
//!   begins with a tag head.
//! - A stray closer is taken only right after a leak (space between), and
//!   only if its name holds `tool` or `call`: `</tool_call>` after
//!   `<function=…>…</function>`, never a document's `</config>`.
//! - Under `openSpanAtEnd: 'drop'`, a text that ends inside a leak is dropped
//!   from the leak's start only if a head had already named an offered tool
//!   where a call's name goes (or a JSON value showed a whole call object): a
//!   text that merely ends after a tool's name is the answer's.
//!
//! Calls separated only by space, `,` or `;` belong to one leak while a
//! wrapper holds them; when none follows, the innermost wrapper is closed
//! (a call's own) and more calls are looked for under the rest. With no
//! wrapper, each call is a leak of its own and the text between them stays.
//!
//! # Streaming, and its cost
//!
//! The stage emits everything up to the next unit where a leak could begin
//! (`<`, `[`, `{`, a fence or a letter at a line's start, a tool's name,
//! `functions.`, `to=` or `default_api` at a word's start) and tries to read
//! a leak there. A try that fails on an opener or head gives up within a
//! bounded distance; one that fails inside a JSON value that is not a call
//! leaves the rest of that value to a one-pass JSON scan, and one at a fence
//! leaves the rest of the code block to a one-pass fence scan, so nothing
//! inside them is tried again. A try that runs out of text (a name that a
//! longer offered name could still continue included) holds the candidate
//! and is repeated only once the held text has grown by half, so the
//! re-reading adds up to a constant factor of the text. At the flush the
//! text is complete: nothing is held back, and what no leak took is text.
//!
//! What else a failed try reads (an element that never closes, a long value
//! followed by the wrong closer) is paid from a reading credit: every unit
//! the stage passes earns [`CREDIT_PER_UNIT`](stage::CREDIT_PER_UNIT), every failed try spends what
//! it read beyond its start, and while the credit is spent no try is made.
//! Ordinary text never comes near the limit; a text built to make every try
//! read to its end has some candidates passed over as text, and time stays
//! linear. The credit depends on the text alone, not on where the chunks were
//! cut, so the output is the same for every chunking.
//!
//! Every index is checked and every loop bounded by the text or a constant;
//! nothing recurses but the arguments' parsers, which stop at a fixed depth.

mod arguments;
mod bare;
mod code;
mod heads;
mod json_calls;
mod keys;
mod reader;
mod skip;
mod stage;
mod text;
mod tools;
mod wrappers;

pub(crate) use stage::CallStage;
pub use tools::{Tools, ToolsError};

#[cfg(test)]
mod tests;
