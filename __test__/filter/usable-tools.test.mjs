// usableTools: the tools of a list that tool-aware detection can use, and
// what it leaves out, by the same rules `new ScaffoldingFilter({ tools })`
// refuses a list by (src/filter/tool_names.rs holds them once).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';

import { ScaffoldingFilter, SkippedToolReason, usableTools } from 'seamguard';

const SEED = Number(process.env.USABLE_TOOLS_SEED ?? 20260701);

const long = (length) => 'x'.repeat(length);

// Each row: the case, the list, the usable tools, and what is skipped.
const CASES = [
  ['nothing', [], [], []],
  ['names', ['get_weather', { name: 'search' }], ['get_weather', { name: 'search' }], []],
  ['an empty name', ['', 'a'], ['a'], [[0, '', 'empty-name']]],
  ['256 units', [long(256)], [long(256)], []],
  ['257 units', [long(257), 'a'], ['a'], [[0, long(257), 'long-name']]],
  ['units, not characters: 129 emoji', ['🌤'.repeat(129)], [], [[0, '🌤'.repeat(129), 'long-name']]],
  ['a line feed', ['a\nb'], [], [[0, 'a\nb', 'line-break']]],
  ['a carriage return', [{ name: 'a\rb', parameters: ['x'] }], [], [[0, 'a\rb', 'line-break']]],
  ['a tab and a line separator are no line breaks', ['a\tb', 'a\u2028b'], ['a\tb', 'a\u2028b'], []],
  ['the first of a repeated name is kept', ['a', { name: 'a', parameters: ['x'] }, 'b', 'a'], ['a', 'b'],
    [[1, 'a', 'repeated-name'], [3, 'a', 'repeated-name']]],
  ['an unusable name given twice is reported twice', ['', ''], [], [[0, '', 'empty-name'], [1, '', 'empty-name']]],
  ['an empty parameter name is dropped, the tool kept', [{ name: 'a', parameters: ['', 'city', ''] }],
    [{ name: 'a', parameters: ['city'] }], [[0, 'a', 'empty-parameter']]],
  ['every parameter empty', [{ name: 'a', parameters: [''] }], [{ name: 'a', parameters: [] }], [[0, 'a', 'empty-parameter']]],
  ["a name's fault before its parameters'", [{ name: '', parameters: [''] }], [], [[0, '', 'empty-name']]],
  ['names in any script', ['météo', '天气', 'погода', '🌤️', 'a\ud800b', '\udc00'], ['météo', '天气', 'погода', '🌤️', 'a\ud800b', '\udc00'], []],
  ['what an MCP server lists', ['read_file', `mcp__server__${long(250)}`, 'summarize\n(beta)', 'read_file', { name: 'query', parameters: ['sql', ''] }],
    ['read_file', { name: 'query', parameters: ['sql'] }],
    [[1, `mcp__server__${long(250)}`, 'long-name'], [2, 'summarize\n(beta)', 'line-break'], [3, 'read_file', 'repeated-name'],
      [4, 'query', 'empty-parameter']]],
];

test('each rule, in a table', () => {
  for (const [name, list, tools, skipped] of CASES) {
    const answer = usableTools(list);
    assert.deepEqual(Object.keys(answer), ['tools', 'skipped'], name);
    assert.deepEqual(answer.tools, tools, name);
    assert.deepEqual(answer.skipped, skipped.map(([index, toolName, reason]) => ({ index, name: toolName, reason })), name);
    for (const { reason } of answer.skipped) assert.ok(Object.values(SkippedToolReason).includes(reason), name);
  }
});

test('a kept entry is the very value given; a trimmed one is new', () => {
  const tool = Object.freeze({ name: 'search', parameters: Object.freeze(['q']) });
  const trimmed = { name: 'read', parameters: ['path', ''] };
  const list = Object.freeze(['get_weather', tool, trimmed, '']);
  const { tools } = usableTools(list);
  assert.equal(tools[0], list[0]);
  assert.equal(tools[1], tool);
  assert.notEqual(tools[2], trimmed);
  assert.deepEqual(trimmed.parameters, ['path', ''], 'the list given is not changed');
  assert.ok(Array.isArray(tools) && !Object.isFrozen(tools));
  // A list the filter takes comes back whole.
  const whole = ['a', { name: 'b' }, { name: 'c', parameters: ['x'] }];
  const answer = usableTools(whole);
  assert.deepEqual(answer.skipped, []);
  assert.ok(answer.tools.every((entry, index) => entry === whole[index]));
});

test('a bad argument is a TypeError naming it; a bad name is not', () => {
  const BAD = [
    [undefined, /^usableTools: tools must be an array of tool names or \{ name, parameters\? \} objects \(got undefined\)$/],
    [null, /usableTools: tools must be an array .* \(got null\)/],
    ['get_weather', /usableTools: tools must be an array .* \(got string\)/],
    [{ 0: 'a', length: 1 }, /usableTools: tools must be an array .* \(got object\)/],
    [[42], /usableTools: tools\[0\] must be a tool name or a \{ name, parameters\? \} object \(got number\)/],
    [['a', null], /usableTools: tools\[1\] must be a tool name or a \{ name, parameters\? \} object \(got null\)/],
    [[['a']], /usableTools: tools\[0\] must be a tool name or a \{ name, parameters\? \} object/],
    [[{ name: 1 }], /usableTools: tools\[0\]\.name must be a string \(got number\)/],
    [[{}], /usableTools: tools\[0\]\.name must be a string \(got undefined\)/],
    [[{ name: 'a', params: [] }], /usableTools: tools\[0\]\.params is not a tool field/],
    [[{ name: 'a', parameters: 'city' }], /usableTools: tools\[0\]\.parameters must be an array of parameter names \(got string\)/],
    [[{ name: 'a', parameters: ['x', 3] }], /usableTools: tools\[0\]\.parameters\[1\] must be a string \(got number\)/],
  ];
  for (const [tools, message] of BAD) {
    assert.throws(() => usableTools(tools), (error) => error instanceof TypeError && message.test(error.message), String(message));
  }
  assert.throws(() => usableTools(), TypeError);
  assert.doesNotThrow(() => usableTools(['', 'x'.repeat(1000), 'a\nb', 'a', 'a']));
});

test('a getter that throws while the list is read reaches the caller', () => {
  const boom = new Error('boom');
  const list = [{ get name() { throw boom; } }];
  assert.throws(() => usableTools(list), (error) => error === boom);
});

// The filter and usableTools by one set of rules, on random lists.
const name = fc.oneof(
  fc.constantFrom('', 'a', 'b', 'get_weather', 'météo', '天气', 'a\nb', 'x\r', '\ud800', long(256), long(257), '🌤'.repeat(128), '🌤'.repeat(129)),
  fc.string({ maxLength: 4 }),
);
const entry = fc.oneof(
  name,
  fc.record({ name }),
  fc.record({ name, parameters: fc.array(fc.constantFrom('', 'city', 'q', 'days'), { maxLength: 3 }) }),
);

/** The filter's answer to a list: `null` when it takes it, else its error's message. */
function filterVerdict(tools) {
  try {
    new ScaffoldingFilter({ tools });
    return null;
  } catch (error) {
    assert.ok(error instanceof TypeError, String(error));
    return error.message;
  }
}

const MESSAGES = {
  'empty-name': "a tool's name must not be empty",
  'long-name': "a tool's name must be at most 256 characters",
  'line-break': "a tool's name must not hold a line break",
  'repeated-name': 'this name is given twice',
  'empty-parameter': "a parameter's name must not be empty",
};

test('the filter refuses exactly the lists usableTools would change, for the first tool it would, and takes what it keeps', () => {
  fc.assert(fc.property(fc.array(entry, { maxLength: 8 }), (list) => {
    const { tools, skipped } = usableTools(list);
    const verdict = filterVerdict(list);
    if (skipped.length === 0) {
      assert.equal(verdict, null);
      assert.deepEqual(tools, list);
    } else {
      const [first] = skipped;
      assert.equal(verdict, `ScaffoldingFilter: options.tools[${first.index}]: ${MESSAGES[first.reason]}`);
    }
    assert.equal(filterVerdict(tools), null, 'what it keeps, the filter takes');
    assert.deepEqual(usableTools(tools).skipped, [], 'and keeps it whole');
    // Every tool is either kept or skipped, never both unless trimmed.
    const kept = new Set(tools.map((tool) => (typeof tool === 'string' ? tool : tool.name)));
    assert.equal(kept.size, tools.length, 'no name twice');
    for (const { index, name: skippedName, reason } of skipped) {
      const given = list[index];
      assert.equal(skippedName, typeof given === 'string' ? given : given.name);
      assert.equal(kept.has(skippedName), reason === 'empty-parameter' || reason === 'repeated-name');
    }
  }), { seed: SEED, numRuns: 400 });
});
