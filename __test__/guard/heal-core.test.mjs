// The heal core every adapter shares (lib/guard/heal.cjs): which leaked
// calls may become real ones, the schema test they pass (argumentsMisfit,
// in Rust), and one model call's stream seam as the guard makes it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';

import { argumentsMisfit, ScaffoldingFilter } from 'seamguard';
import { createGuard } from 'seamguard/ai-sdk';
import { chunkings } from '../support/helpers.mjs';

const require = createRequire(import.meta.url);
const { healCalls } = require('../../lib/guard/heal.cjs');
const { Guard } = require('../../lib/guard/core.cjs');
const guardOf = (options) => new Guard(options, 'createGuard');

const WEATHER = {
  name: 'get_weather',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] } },
    required: ['city'],
    additionalProperties: false,
  },
};
const SEARCH = { name: 'search_docs', inputSchema: undefined };

describe('argumentsMisfit', () => {
  it('says why arguments do not fit, and null when they do', () => {
    const schema = JSON.stringify(WEATHER.inputSchema);
    assert.equal(argumentsMisfit('{"city":"Paris"}', schema), null);
    assert.equal(argumentsMisfit('{"city":"Paris","unit":"kelvin"}', schema), "at /unit: the value is not one of the schema's enum");
    assert.equal(argumentsMisfit('{}', schema), 'the required property "city" is missing');
    assert.equal(argumentsMisfit('{"anything":1}'), null);
    assert.equal(argumentsMisfit('{"anything":1}', null), null);
    assert.equal(argumentsMisfit('[1]'), 'the arguments are an array, not an object');
  });

  it('names the argument a bad input came in', () => {
    assert.throws(() => argumentsMisfit(42), { name: 'TypeError', message: 'argumentsMisfit: argumentsJson must be a string of JSON text (got number)' });
    assert.throws(() => argumentsMisfit(null), { name: 'TypeError', message: /argumentsJson must be a string of JSON text \(got null\)/ });
    assert.throws(() => argumentsMisfit('{"a":', '{}'), { name: 'TypeError', message: /^argumentsMisfit: argumentsJson must be JSON text \(/ });
    assert.throws(() => argumentsMisfit('{}', '{oops}'), { name: 'TypeError', message: /^argumentsMisfit: inputSchemaJson must be JSON text \(/ });
    assert.throws(() => argumentsMisfit('{}', {}), { name: 'TypeError', message: /inputSchemaJson must be a string of JSON text \(got object\)/ });
    assert.throws(() => argumentsMisfit('{"city":"\ud800"}'), { name: 'TypeError', message: 'argumentsMisfit: argumentsJson must be well-formed text (it holds a lone surrogate)' });
    // Escaped, as JSON.stringify writes it, a lone surrogate is no JSON serde reads: refused, so heal never runs it.
    assert.throws(() => argumentsMisfit(JSON.stringify({ city: '\ud800' })), { name: 'TypeError', message: /^argumentsMisfit: argumentsJson must be JSON text \(/ });
  });

  it('refuses, rather than loops on, a schema whose references go round', () => {
    const circle = JSON.stringify({ $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' });
    assert.match(argumentsMisfit('{}', circle), /go round in a circle/);
    const branching = JSON.stringify({ $defs: { x: { anyOf: [{ $ref: '#/$defs/x' }, { $ref: '#/$defs/x' }] } }, $ref: '#/$defs/x' });
    assert.notEqual(argumentsMisfit('{}', branching), null);
  });
});

describe('healCalls', () => {
  it('heals only calls to tools on offer whose arguments were read and fit', () => {
    const calls = [
      { name: 'get_weather', input: { city: 'Paris' } },
      { name: 'get_weather', input: { town: 'Paris' } },
      { name: 'get_weather', raw: 'city=Paris,,' },
      { name: 'delete_everything', input: {} },
      { name: 'search_docs', input: { q: 'x' } },
    ];
    const { healed, refused } = healCalls(calls, [WEATHER, SEARCH]);
    assert.deepEqual(healed.map(({ toolName, input }) => ({ toolName, input })), [
      { toolName: 'get_weather', input: { city: 'Paris' } },
      { toolName: 'search_docs', input: { q: 'x' } },
    ]);
    for (const call of healed) assert.match(call.toolCallId, /^healed_[0-9a-f]{32}$/);
    assert.notEqual(healed[0].toolCallId, healed[1].toolCallId);
    assert.deepEqual(refused, [
      { toolName: 'get_weather', reason: 'the required property "city" is missing' },
      { toolName: 'get_weather', reason: 'its arguments could not be read' },
      { toolName: 'delete_everything', reason: 'the tool is not on offer' },
    ]);
  });

  it('refuses a call the filter marked as one to a tool not on offer, whatever its name', () => {
    // The filter marks a call `offered: false` when its tool was not on the
    // list it was given; heal trusts the mark over a name that matches.
    const { healed, refused } = healCalls([{ name: 'get_weather', offered: false, input: { city: 'Paris' } }], [WEATHER]);
    assert.deepEqual(healed, []);
    assert.deepEqual(refused, [{ toolName: 'get_weather', reason: 'the tool is not on offer' }]);
  });

  it('never heals a leaked call to a tool not on offer: the seam strips it and reports it refused', () => {
    const text = 'On it. <tool_call>{"name": "delete_everything", "arguments": {"path": "/"}}</tool_call>';
    for (const chunks of chunkings(text, 31, 8)) {
      const seam = guardOf().streamSeam([WEATHER]);
      const filter = new ScaffoldingFilter(seam.plan);
      assert.equal(chunks.map((chunk) => filter.feed(chunk)).join('') + filter.flush(), 'On it. ');
      assert.deepEqual(seam.heal(0), []);
      assert.deepEqual(seam.leaked.map(({ name, offered }) => ({ name, offered })), [{ name: 'delete_everything', offered: false }]);
    }
  });

  it('refuses arguments it cannot check, and never throws', () => {
    const cyclic = {};
    cyclic.self = cyclic;
    const big = { name: 'get_weather', input: { city: 10n } };
    const { healed, refused } = healCalls([big, { name: 'x', input: {} }], [WEATHER, { name: 'x', inputSchema: cyclic }]);
    assert.deepEqual(healed, []);
    assert.match(refused[0].reason, /could not be checked/);
    assert.equal(refused[1].reason, "the tool's input schema is not JSON");
  });
});

describe('the guard\'s stream seam for one model call', () => {
  const leak = 'Let me look.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';

  it('strips in every chunking, and heals what was leaked since the last heal', () => {
    const guard = guardOf();
    for (const chunks of chunkings(leak, 30, 8)) {
      const seam = guard.streamSeam([WEATHER]);
      const filter = new ScaffoldingFilter(seam.plan);
      assert.equal(chunks.map((chunk) => filter.feed(chunk)).join('') + filter.flush(), 'Let me look.');
      const healed = seam.heal(0);
      assert.deepEqual(healed.map(({ toolName, input }) => ({ toolName, input })), [{ toolName: 'get_weather', input: { city: 'Paris' } }]);
      assert.deepEqual(seam.heal(0), [], 'a call is healed once');
      assert.deepEqual(seam.leaked, [{ name: 'get_weather', input: { city: 'Paris' } }]);
    }
  });

  it('heals nothing beside a real call, nothing not offered, and nothing when heal is off', () => {
    const guard = guardOf();
    const beside = guard.streamSeam([WEATHER]);
    ScaffoldingFilter.strip(leak, beside.plan);
    assert.deepEqual(beside.heal(1), []);

    const withdrawn = guard.streamSeam([WEATHER], []);
    assert.equal(ScaffoldingFilter.strip(leak, withdrawn.plan), 'Let me look.', 'a told tool is stripped');
    assert.deepEqual(withdrawn.heal(0), []);
    assert.deepEqual(withdrawn.refused, [{ toolName: 'get_weather', reason: 'the tool is not on offer' }]);

    const off = guardOf({ heal: false }).streamSeam([WEATHER]);
    assert.equal(ScaffoldingFilter.strip(leak, off.plan), 'Let me look.');
    assert.deepEqual(off.heal(0), []);
  });

  it('changes nothing under strip: false', () => {
    const guard = guardOf({ strip: false });
    assert.equal(guard.stripping, false);
    assert.equal(guard.healing, false);
    const seam = guard.streamSeam([WEATHER]);
    assert.equal(seam.plan, undefined);
    assert.deepEqual(seam.heal(0), []);
  });

  it('names a heal or strip option that is no boolean', () => {
    assert.throws(() => createGuard({ heal: 'yes' }), { name: 'TypeError', message: 'createGuard: options.heal must be a boolean (got string)' });
    assert.throws(() => createGuard({ strip: null }), { name: 'TypeError', message: 'createGuard: options.strip must be a boolean (got null)' });
    assert.throws(() => createGuard({ heals: true }), { name: 'TypeError', message: /unknown option "heals".*did you mean heal\?/ });
  });
});
