// The bare JSON-call recognizer (`{ jsonCall: {} }`, the json-call preset):
// where an object counts as a call. Every reported bare call stands at the
// start of its line; an indented object is a value nested in something
// larger (a payload example, a config) and is left alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScaffoldingFilter } from 'seamguard';
import { chunkings } from './helpers.mjs';

const CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}';

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
    it(name, () => {
      for (const chunks of chunkings(text, 4242, 20)) {
        const filter = new ScaffoldingFilter({ patterns: [{ jsonCall: {} }], openSpanAtEnd: 'drop' });
        const out = chunks.map((chunk) => filter.feed(chunk)).join('') + filter.flush();
        assert.equal(out, expected ?? text, `${chunks.length} chunks`);
      }
    });
  }
});
