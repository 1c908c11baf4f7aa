// The bare JSON-call recognizer (`{ jsonCall: {} }`, the json-call preset):
// where an object counts as a call. Every reported bare call stands at the
// start of its line; an indented object is a value nested in something
// larger (a payload example, a config) and is left alone. And an answer that
// ends inside a JSON value is the answer's own text (a token limit cut it
// off), even under openSpanAtEnd: 'drop', unless what came of the value
// already holds a whole call.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScaffoldingFilter } from 'seamguard';
import { chunkings } from '../support/helpers.mjs';

const CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}';

/** Asserts `text` comes out as `expected` (itself when null) in every chunking, under openSpanAtEnd: 'drop'. */
function assertOut(text, expected, seed) {
  for (const chunks of chunkings(text, seed, 20)) {
    const filter = new ScaffoldingFilter({ patterns: [{ jsonCall: {} }], openSpanAtEnd: 'drop' });
    const out = chunks.map((chunk) => filter.feed(chunk)).join('') + filter.flush();
    assert.equal(out, expected ?? text, `${chunks.length} chunks`);
  }
}

const cases = [
  ['the whole answer', CALL, ''],
  ['at the start of a line after prose', `Checking.\n${CALL}\nDone.`, 'Checking.\n\nDone.'],
  ['in a json fence at the start of a line', `Checking.\n\`\`\`json\n${CALL}\n\`\`\`\nDone.`, 'Checking.\n\nDone.'],
  ['indented by spaces: nested in a payload, left alone', `{\n  "tool_calls": [\n    ${CALL}\n  ]\n}`.replace('"tool_calls"', '"examples"'), null],
  ['indented by a tab, left alone', `Example:\n\t${CALL}\n`, null],
  ['an indented fence, left alone', `1. Send this:\n   \`\`\`json\n   ${CALL}\n   \`\`\`\n`, null],
  ['after words on the same line, left alone', `The call looks like ${CALL} in the log.`, null],
];

describe('jsonCall: a call begins its line', () => {
  for (const [name, text, expected] of cases) {
    it(name, () => assertOut(text, expected, 4242));
  }
});

const cut = [
  ['a package.json cut off mid-value', '```json\n{\n  "name": "app",\n  "private": true,\n  "scripts": {"dev": "vite"},\n  "version": "0.', null],
  ['a tool definition cut off', '{"name": "sum", "description": "Adds", "parameters": {"type": "object", "properties": {"a": {"type": "num', null],
  ['a fence that only opened', 'Here it is:\n```json\n{', null],
  ['a call cut off before any object in it closed', '{"name": "get_weather", "arguments": {"city": "Pa', null],
  ['the OpenAI shape, one closing brace missing', '{"type": "function", "function": {"name": "f", "parameters": {"x": 1}}', ''],
  ['a list whose first call is whole', 'Calling.\n[{"name": "f", "arguments": {}}, {"name": "g", "argu', 'Calling.\n'],
  ['tool_calls whose first call is whole', '{"tool_calls": [{"name": "f", "arguments": {"q": "x"}}, {"na', ''],
  ['a whole call waiting for its closing fence', `\`\`\`json\n${CALL}\n`, ''],
];

describe("jsonCall under openSpanAtEnd: 'drop': a value cut off at the end", () => {
  for (const [name, text, expected] of cut) {
    it(name, () => assertOut(text, expected, 777));
  }
});
