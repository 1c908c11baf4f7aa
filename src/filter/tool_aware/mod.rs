//! Tool-aware detection: a leaked call to one of the offered tools, found by
//! the tool's name in whatever markup carries it.
//!
//! A preset knows one family's markup. What every leaked call shares is that
//! it names a tool the model was offered, in a place where a call's name
//! goes, with its arguments next to it, inside whatever wrapper the family
//! uses. This stage reads exactly that:
//!
//! ```text
//! leak    = lead? residue* opener* head args (separator opener* head args)* closer* stray*
//!         | header stray*               (a harmony channel header alone, at a line's start or
//!                                        opening with <|end|> or <|start|>: `channels`)
//! lead    = word to= | word:            (at a line's start, a channel word before a distinctive
//!                                        head: `commentary to=functions.NAME`, `Lie:default_api:NAME`)
//!         | channel to=                 (harmony's channel word, tokens removed: `commentary to=NAME`)
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
//!         | a head above naming OTHER, a tool not on offer    (`unoffered`: strong only, with
//!           JSON, tag or distinctive arguments; or <tag=OTHER> with <parameter=k> tags)
//!         | <NAME> | <tag name="NAME"> | <tag=NAME|OTHER> with <parameter=k>… or
//!           <parameter name="k">… whose closers never came: the last value ends at the
//!           next pair, a call's closer, a blank line or the end (`residue`)
//!         | <parameter=k>v</parameter>… then a closer of a call (`</function>`, or
//!           one whose name holds `tool` or `call`): parameters whose head was lost
//!         | word key="v"… <|token|> entries                    (after a special token, an attribute
//!                                        naming NAME: `<|open|>call tool="NAME" index="1"<|sep|>`)
//!         | role? verb tool NAME (id)? with what: JSON | :? NAME Args :JSON   (a narration,
//!                                        its JSON ending its line: `narrated`)
//!         | NAME(k=v, …)                (no wrapper, alone on its line, literal keyword
//!                                        arguments: `python_line`)
//! args    = JSON object (or a loose one, `{key:<|"|>v<|"|>}`, `{key:"v"}`; kept raw if it
//!           does not parse) | (pythonic, `k=v` or `k: v`)
//!         | <key>v</key>… | <parameter=k>v</parameter>… | <parameter name="k" string="true">v</parameter>…
//!         | <arg_key>k</arg_key><arg_value>v</arg_value>…    (the list ends at whatever is no pair)
//! entries = (<|token|> word key="k" type="t"? <|token|> value <|token|>word<|token|>)*
//!           (the value typed by `type`; or one `json` entry holding the whole object)
//! gap     = between a bare name and its arguments: space, `:0`, special tokens, markers,
//!           a ```json fence, up to two short lowercase words (`commentary json`), and
//!           after a distinctive head a run of stray non-ASCII (a garbled stream's)
//! closer  = </tag> (or <end_X> for <start_X>) for each tag opened, ], [/MARKER],
//!           ``` for a fence (required), any special token
//! residue = </part> | <toolish>\s*</toolish>               (a call's part: parameter, param,
//!                                        function, invoke, arg_key, arg_value, argument(s),
//!                                        args; toolish: a tag whose name holds `tool` or `call`)
//! stray   = a special token (and a word glued between two: `<|close|>call<|sep|>`), a
//!           harmony channel header, an empty toolish wrapper, or a closing tag of a call's
//!           part or a toolish wrapper, that nothing opened; at the end of the text, a
//!           special token, marker or closing tag the end cut off
//! header  = <|end|>? (<|start|> assistant?)? <|channel|> analysis|commentary|final
//!           (<|constrain|> word)? <|message|>
//! ```
//!
//! At the end of the text (the flush), under either `openSpanAtEnd`, a try
//! that fails there is dropped from where it began when it reads as a call
//! to an offered tool the end cut off (a head had named the tool, see
//! `Reader::cut_off_call`), is a special token the end cut off
//! (`Reader::cut_off_token`), or is a call's opening tag alone at a line's
//! start that the end cut off before its head (`Reader::cut_off_opener`);
//! everything else is text.
//!
//! A leak's calls are read out: the tool (its index in the list, or the
//! name of a tool not on offer, which must never run) and the
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
//! Where a text could be a leak or a user's code or document, it is left
//! alone; and the stage reads in time linear in the text, paying for
//! failed tries from a reading credit ([`CREDIT_PER_UNIT`](stage::CREDIT_PER_UNIT)).
//! `docs/design.md` ("Tool-aware detection") states the precision rules
//! one by one, and what streaming costs.

mod arguments;
mod attributes;
mod bare;
mod channels;
mod code;
mod heads;
mod json_calls;
mod keys;
mod narrated;
mod python_line;
mod reader;
mod residue;
mod skip;
mod stage;
mod text;
mod tools;
mod unoffered;
mod wrappers;

pub(crate) use stage::CallStage;
pub use tools::{Tools, ToolsError};

#[cfg(test)]
mod kinds_tests;
#[cfg(test)]
mod tests;
