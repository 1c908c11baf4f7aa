'use strict';
// What a tool result or a tool call's input reads as, for the run corpus.
//
// A model reads structured output as JSON text, where `C:\share` is written
// `C:\\share` and `Zoë "quoted"` may be `Zo\u00eb \"quoted\"`; the value it
// copies into its next call is the decoded one. Searched as JSON text alone,
// such a value would never be found, so a grounding would read as none. So
// the text is the JSON text followed by every string (key or value) whose
// JSON form may differ from what it reads: one per line. A string result
// that is itself JSON text is read both ways too.
//
// Every escape in JSON text starts with a backslash, so a text without one
// reads exactly as its strings do, and its strings are not walked at all.

// A string whose every unit is printable ASCII other than `"` and `\` reads
// the same in any JSON text: it needs no decoded copy.
const NEEDS_DECODED_COPY = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

// Only text that opens like a JSON object, array or string is tried as JSON:
// a number or a word is searched as it is.
const OPENS_LIKE_JSON = /^\s*[[{"]/;

/**
 * Appends, one per line, the strings of `value` that JSON text would escape,
 * in document order. It walks with a stack of its own, not by recursion: a
 * tool result nested a million deep is read as any other.
 */
function decodedStrings(value, out) {
  const stack = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next === 'string') {
      if (NEEDS_DECODED_COPY.test(next)) out.push(next);
    } else if (Array.isArray(next)) {
      for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]);
    } else if (next !== null && typeof next === 'object') {
      const entries = Object.entries(next);
      for (let i = entries.length - 1; i >= 0; i--) {
        stack.push(entries[i][1]);
        // The key is read before its value, as the JSON text has it.
        if (NEEDS_DECODED_COPY.test(entries[i][0])) stack.push(entries[i][0]);
      }
    }
  }
}

/**
 * The text a value is searched as: a string as it is (and, when it parses as
 * JSON, the strings inside it decoded), anything else as its JSON text and
 * its decoded strings. `undefined`, a function or a symbol reads as nothing.
 */
function searchableText(value) {
  let json;
  let text;
  if (typeof value === 'string') {
    text = value;
    if (OPENS_LIKE_JSON.test(value)) {
      try {
        json = JSON.parse(value);
      } catch {
        return text;
      }
    } else {
      return text;
    }
  } else {
    try {
      text = JSON.stringify(value);
    } catch {
      // A value JSON cannot write (a cycle, a BigInt) never reached a model
      // as JSON: there is no text to search.
      return '';
    }
    if (text === undefined) return '';
    json = value;
  }
  if (!text.includes('\\')) return text;
  const strings = [];
  decodedStrings(json, strings);
  return strings.length === 0 ? text : `${text}\n${strings.join('\n')}`;
}

/**
 * What a tool result that reached the model as text reads as: the JSON value
 * it spells when it opens like a JSON object, array or string and parses,
 * otherwise the text itself. LangChain.js and the OpenAI Agents SDK hand a
 * tool's structured result to the model as its JSON text; their adapters
 * read it back with this, so a lookup's empty list is read as one, as the
 * AI SDK's structured output is.
 */
function valueOfText(text) {
  if (!OPENS_LIKE_JSON.test(text)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

exports.searchableText = searchableText;
exports.valueOfText = valueOfText;
