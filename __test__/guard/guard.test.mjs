// The guard's promises beyond the field cases, through the AI SDK adapter
// and AI SDK 6: options checked when the guard is made, never in the way of
// the run, the run's record (new runs, windows, repeated messages), and the
// text a tool result is searched as.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { readLookupResult } from 'seamguard';
import { createGuard, scaffoldingMiddleware } from 'seamguard/ai-sdk';
import { searchableText } from '../../lib/guard/text.cjs';

import { MODES, runAgent, scriptedModel, sdkMajors, toolOf } from '../support/agents.mjs';

const [sdk] = await sdkMajors();
const { ai } = sdk;
const WWPN = '20:00:00:25:b5:aa:00:1f';

function tools({ lookup = async () => [] } = {}) {
  return {
    fabric_inventory: toolOf(ai, { description: 'Lists devices', execute: async () => ({ devices: [{ wwpn: WWPN, host: 'host-a' }] }) }),
    port_for_device: toolOf(ai, { description: 'Port of a device', properties: { wwpn: { type: 'string' } }, execute: lookup }),
  };
}
const TRIAGE = [
  { calls: [{ toolName: 'fabric_inventory', input: {} }] },
  { calls: [{ toolName: 'port_for_device', input: { wwpn: WWPN } }] },
  { text: 'Not logged in.' },
];
const ARMED = { port_for_device: ['fabric_inventory'] };

async function guarded(guard, script, { mode = 'generate', prompt = 'Go.', toolset = tools(), ...rest } = {}) {
  const { model, prompts } = scriptedModel(sdk, script);
  const text = await runAgent(sdk, mode, { model: ai.wrapLanguageModel({ model, middleware: guard.middleware }), tools: toolset, prompt, ...rest });
  return { text, prompts };
}
const rows = (guard) => Object.fromEntries(guard.ledger.report().map((row) => [row.check, row]));

describe('createGuard: options are checked when the guard is made', () => {
  const cases = [
    [42, /options must be an object \(got number\)/],
    [[], /options must be an object \(got an array\)/],
    [{ argumentFrom: {} }, /unknown option "argumentFrom" \(known: argumentsFrom, readResult, onFinding, onError, posture, maxRuns, heal, strip, stopOn, evidence, noticePriorTurnEvidence; did you mean argumentsFrom\?\)/],
    [{ maxRuns: 0 }, /options\.maxRuns must be a whole number of at least 1 \(got 0\)/],
    [{ maxRuns: '10' }, /options\.maxRuns must be a whole number of at least 1 \(got string\)/],
    [{ argumentsFrom: ['x'] }, /options\.argumentsFrom must be an object/],
    [{ argumentsFrom: { port_for_device: 'fabric_inventory' } }, /options\.argumentsFrom\["port_for_device"\] must be an array of tool names/],
    [{ argumentsFrom: { a: ['b', 7] } }, /options\.argumentsFrom\["a"\]/],
    [{ readResult: { a: 'rows' } }, /options\.readResult\["a"\] must be a function \(got string\)/],
    [{ readResult: () => {} }, /options\.readResult must be an object/],
    [{ onFinding: 'log' }, /options\.onFinding must be a function \(got string\)/],
    [{ onError: null }, /options\.onError must be a function \(got null\)/],
    [{ posture: 'staging' }, /options\.posture must be 'dev' or 'prod' \(got "staging"\)/],
    [{ stopOn: 'empty-lookup' }, /options\.stopOn must be true or an array of finding kinds .*got string/],
    [{ stopOn: ['empty-lookups'] }, /options\.stopOn names "empty-lookups", which is not a kind of finding .*did you mean empty-lookup\?/],
    [{ stopOn: ['dangling-reference', 7] }, /options\.stopOn names 7, which is not a kind of finding/],
    [{ evidence: 'on' }, /options\.evidence must be true or an object \{ posture, exempt, shapes, minDigits \} \(got string\)/],
    [{ evidence: { posture: 'rails' } }, /options\.evidence\.posture 'rails' is not offered: a guard never refuses a run\. .*stopOn/],
    [{ evidence: { posture: 'strict' } }, /options\.evidence\.posture must be 'assist' or 'guard' \(got "strict"\)/],
    [{ evidence: { exempts: [] } }, /options\.evidence has unknown key "exempts" \(known: posture, exempt, shapes, minDigits\)/],
    [{ evidence: { exempt: 'ACME' } }, /options\.evidence\.exempt must be an array \(got string\)/],
    [{ evidence: { exempt: ['ACME', 7] } }, /options\.evidence\.exempt\[1\] must be a string or a RegExp \(got number\)/],
    [{ evidence: { shapes: [{ name: 'ticket', match: 'INC-\\d+' }] } }, /options\.evidence\.shapes\[0\]\.match must be a RegExp \(got string\)/],
    [{ evidence: { minDigits: '4' } }, /options\.evidence\.minDigits must be a number \(got string\)/],
    [{ evidence: true, noticePriorTurnEvidence: 'yes' }, /options\.noticePriorTurnEvidence must be a boolean \(got string\)/],
    [{ noticePriorTurnEvidence: true }, /options\.noticePriorTurnEvidence needs options\.evidence/],
    [{ evidence: true, stopOn: ['unsupported-claims'] }, /did you mean unsupported-claim\?/],
  ];
  for (const [options, message] of cases) {
    it(`refuses ${JSON.stringify(options)}`, () => {
      assert.throws(() => createGuard(options), (error) => error instanceof TypeError && /^createGuard: /.test(error.message) && message.test(error.message));
    });
  }
  // Values of the right type the addon's reader cannot use: refused when
  // the guard is made, by the rule every judgement applies, not at the
  // first answer.
  const unusable = [
    [{ evidence: { minDigits: 0 } }, /options\.evidence\.minDigits must be a whole number of at least 1 \(got 0\)/],
    [{ evidence: { minDigits: 2.5 } }, /options\.evidence\.minDigits must be a whole number of at least 1 \(got 2\.5\)/],
    [{ evidence: { shapes: [{ name: 'ticket', match: /INC-(?=\d)\d+/ }] } }, /options\.evidence\.shapes\[0\]\.match is a RegExp this check cannot run \(.*look-around/],
    [{ evidence: { shapes: [{ name: 'ticket', match: /INC-\d+/ }, { name: ' ticket ', match: /CHG-\d+/ }] } }, /options\.evidence\.shapes\[1\]\.name repeats the name 'ticket'/],
    [{ evidence: { shapes: [{ name: '  ', match: /INC-\d+/ }] } }, /options\.evidence\.shapes\[0\]\.name must be a non-empty name/],
    [{ evidence: { exempt: [/(?<=v)\d+/] } }, /options\.evidence\.exempt\[0\] is a RegExp this check cannot run/],
  ];
  for (const [options, message] of unusable) {
    it(`refuses ${JSON.stringify(options, (_, v) => (v instanceof RegExp ? String(v) : v))}`, () => {
      assert.throws(() => createGuard(options), (error) => error instanceof RangeError && /^createGuard: /.test(error.message) && message.test(error.message));
    });
  }
  it('takes no options at all: nothing is armed, and every row says so once', async () => {
    const guard = createGuard();
    await guarded(guard, TRIAGE);
    assert.deepEqual(guard.findings, []);
    assert.deepEqual(guard.ledger.report().map((row) => [row.check, row.notApplicable, row.checked]), [
      ['empty-lookup', 1, 0],
      ['unsupported-argument', 1, 0],
      ['dangling-reference', 1, 0],
    ]);
  });
  it("posture 'dev' runs each check's canary at the run's start", async () => {
    const guard = createGuard({ argumentsFrom: ARMED, posture: 'dev' });
    await guarded(guard, TRIAGE);
    assert.deepEqual(guard.ledger.report().map((row) => row.synthetic), [1, 1, 1]);
    guard.ledger.assertAlive({ workExisted: true });
  });
});

describe('never in the way of the run', () => {
  it('hands the model every prompt and the caller every answer exactly as without it', async () => {
    for (const mode of MODES) {
      const bare = scriptedModel(sdk, TRIAGE);
      const bareText = await runAgent(sdk, mode, { model: bare.model, tools: tools(), prompt: 'Go.' });
      const { text, prompts } = await guarded(createGuard({ argumentsFrom: ARMED }), TRIAGE, { mode });
      assert.equal(text, bareText);
      assert.deepEqual(prompts, bare.prompts);
    }
  });

  it('the guard itself is the middleware too: `middleware: guard` guards', async () => {
    const guard = createGuard({ argumentsFrom: ARMED });
    const { model } = scriptedModel(sdk, TRIAGE);
    await runAgent(sdk, 'stream', { model: ai.wrapLanguageModel({ model, middleware: guard }), tools: tools(), prompt: 'Go.' });
    assert.deepEqual(guard.findings.map((f) => f.kind), ['empty-lookup']);
  });

  it('a readResult that throws: the encounter is unreachable, onError has the error, the run goes on', async () => {
    const errors = [];
    const guard = createGuard({
      argumentsFrom: ARMED,
      readResult: { port_for_device: () => { throw new Error('reader broke'); } },
      onError: (error) => errors.push(error),
    });
    const { text } = await guarded(guard, TRIAGE);
    assert.equal(text, 'Not logged in.');
    assert.deepEqual(errors.map((e) => e.message), ['reader broke']);
    assert.equal(rows(guard)['empty-lookup'].unreachable, 1);
    assert.deepEqual(guard.findings, []);
  });

  it('readResult reads a bespoke result: the lookup is judged by what it returns', async () => {
    const guard = createGuard({
      argumentsFrom: ARMED,
      readResult: { port_for_device: (output) => readLookupResult(output.matches, false) },
    });
    await guarded(guard, TRIAGE, { toolset: tools({ lookup: async ({ wwpn }) => ({ wwpn, matches: [] }) }) });
    assert.deepEqual(guard.findings.map((f) => f.kind), ['empty-lookup']);
    // Without the reader the same result is no lookup the check can read.
    const plain = createGuard({ argumentsFrom: ARMED });
    await guarded(plain, TRIAGE, { toolset: tools({ lookup: async ({ wwpn }) => ({ wwpn, matches: [] }) }) });
    assert.deepEqual(plain.findings, []);
    assert.equal(rows(plain)['empty-lookup'].notApplicable, 1);
  });

  it('reads an absence envelope as an absence', async () => {
    const guard = createGuard({ argumentsFrom: ARMED });
    await guarded(guard, TRIAGE, { toolset: tools({ lookup: async () => ({ af_absent: true, checked: ['fabric-a'] }) }) });
    assert.match(guard.findings[0].message, /declared absence/);
  });

  it('an onFinding that throws: the finding is filed and counted, the error goes to onError, the run goes on', async () => {
    const errors = [];
    const guard = createGuard({ argumentsFrom: ARMED, onFinding: () => { throw new Error('logger down'); }, onError: (e) => errors.push(e) });
    const { text } = await guarded(guard, TRIAGE);
    assert.equal(text, 'Not logged in.');
    assert.equal(guard.findings.length, 1);
    assert.deepEqual(errors.map((e) => e.message), ['logger down']);
    // The books agree: the ledger counts the finding the guard holds.
    const write = rows(guard)['empty-lookup'];
    assert.deepEqual([write.checked, write.findings, write.unreachable], [1, 1, 0]);
  });

  it('an onFinding that throws loses no finding: every one is kept, each error reported', async () => {
    const errors = [];
    const guard = createGuard({
      argumentsFrom: { port_for_device: ['fabric_inventory'] },
      onFinding: (finding) => { throw new Error(`logger down at ${finding.predicate}`); },
      onError: (e) => errors.push(e.message),
    });
    const twoArgs = [TRIAGE[0], { calls: [{ toolName: 'port_for_device', input: { wwpn: WWPN, host: 'host-a' } }] }, TRIAGE[2]];
    await guarded(guard, twoArgs);
    assert.deepEqual(guard.findings.map((f) => [f.kind, f.predicate]), [['empty-lookup', 'wwpn'], ['empty-lookup', 'host']]);
    assert.deepEqual(errors, ['logger down at wwpn', 'logger down at host']);
  });

  it('an answer with one unreadable armed call: the others are judged, the answer noted unreachable', async () => {
    const errors = [];
    const guard = createGuard({ argumentsFrom: ARMED, onError: (e) => errors.push(e) });
    const { model } = scriptedModel(sdk, [
      TRIAGE[0],
      { calls: [{ toolName: 'port_for_device', input: { wwpn: 'nowhere-9999' } }] },
      { text: 'Done.' },
    ]);
    // The second call's input is not JSON, as a model sometimes writes it.
    const wrapped = ai.wrapLanguageModel({
      model,
      middleware: {
        specificationVersion: 'v3',
        async wrapGenerate({ doGenerate }) {
          const result = await doGenerate();
          const bad = result.content.some((part) => part.type === 'tool-call' && part.input.includes('nowhere'));
          if (!bad) return result;
          return { ...result, content: [...result.content, { type: 'tool-call', toolCallId: 'bad-1', toolName: 'port_for_device', input: '{"wwpn": ' }] };
        },
      },
    });
    const text = await runAgent(sdk, 'generate', { model: ai.wrapLanguageModel({ model: wrapped, middleware: guard.middleware }), tools: tools(), prompt: 'Go.' });
    assert.equal(text, 'Done.');
    assert.deepEqual(guard.findings.map((f) => [f.kind, f.witnesses[0].value]), [['unsupported-argument', 'nowhere-9999']]);
    assert.equal(rows(guard)['unsupported-argument'].unreachable, 1);
    assert.match(errors[0].message, /createGuard: the input of tool call "bad-1" to port_for_device could not be read/);
  });

  it('a call input past the checks\' limits is unreachable, reported, and the run goes on', async () => {
    const errors = [];
    const guard = createGuard({ argumentsFrom: ARMED, onError: (e) => errors.push(e) });
    const huge = { wwpn: WWPN, batch: Array.from({ length: 1_000_001 }, () => 0) };
    const { text } = await guarded(guard, [TRIAGE[0], { calls: [{ toolName: 'port_for_device', input: huge }] }, TRIAGE[2]]);
    assert.equal(text, 'Not logged in.');
    assert.ok(errors.length >= 1);
    assert.ok(errors.every((e) => e instanceof Error));
    assert.equal(rows(guard)['unsupported-argument'].unreachable, 1);
  });

  it('without onError, the first error is printed once on the console', async (t) => {
    const warnings = [];
    t.mock.method(console, 'warn', (...args) => warnings.push(args.join(' ')));
    const guard = createGuard({ argumentsFrom: ARMED, readResult: { port_for_device: () => { throw new Error('reader broke'); } } });
    await guarded(guard, TRIAGE);
    await guarded(guard, TRIAGE, { prompt: 'Again, another conversation.' });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /reader broke/);
  });
});

describe('never in the way: async callbacks', () => {
  /** Fails the test on any unhandled rejection while `fn` runs, and a tick after. */
  async function noUnhandled(fn) {
    const unhandled = [];
    const listener = (reason) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const result = await fn();
      await new Promise((resolve) => setTimeout(resolve, 20));
      return result;
    } finally {
      process.off('unhandledRejection', listener);
      assert.deepEqual(unhandled, []);
    }
  }

  it('an onFinding that rejects: the rejection goes to onError, the finding is filed and counted', async () => {
    const errors = [];
    const guard = createGuard({ argumentsFrom: ARMED, onFinding: async () => { throw new Error('sink down'); }, onError: (e) => errors.push(e.message) });
    await noUnhandled(() => guarded(guard, TRIAGE));
    assert.deepEqual(errors, ['sink down']);
    assert.equal(guard.findings.length, 1);
    assert.equal(rows(guard)['empty-lookup'].findings, 1);
  });

  it('an onError that rejects (or throws) is said once on the console, never an unhandled rejection', async (t) => {
    const warned = t.mock.method(console, 'warn', () => {});
    const guard = createGuard({
      argumentsFrom: ARMED,
      onFinding: () => { throw new Error('sink down'); },
      onError: async () => { throw new Error('pager down'); },
    });
    await noUnhandled(async () => {
      await guarded(guard, TRIAGE);
      await guarded(guard, TRIAGE);
    });
    assert.equal(warned.mock.callCount(), 1);
    assert.match(String(warned.mock.calls[0].arguments[0]), /onError failed[\s\S]*pager down/);
  });

  it('a readResult that answers with a promise is awaited: the lookup is judged by what it resolves to', async () => {
    const guard = createGuard({
      argumentsFrom: ARMED,
      readResult: { port_for_device: async (output) => readLookupResult(output, false) },
    });
    await guarded(guard, TRIAGE, { mode: 'stream' });
    assert.deepEqual(guard.findings.map((f) => f.kind), ['empty-lookup']);
    assert.equal(rows(guard)['empty-lookup'].checked, 1);
  });

  it('a readResult that rejects: the encounter is unreachable, onError has the rejection, the run goes on', async () => {
    const errors = [];
    const guard = createGuard({ argumentsFrom: ARMED, readResult: { port_for_device: async () => { throw new Error('reader down'); } }, onError: (e) => errors.push(e.message) });
    const { text } = await noUnhandled(() => guarded(guard, TRIAGE));
    assert.equal(text, 'Not logged in.');
    assert.deepEqual(errors, ['reader down']);
    assert.equal(rows(guard)['empty-lookup'].unreachable, 1);
  });
});

describe('never in the way: a message the guard cannot read', () => {
  /** The AI SDK prompt of a triage run that first took a note whose result is `output`, then read the inventory. */
  const promptWith = (output) => [
    { role: 'user', content: [{ type: 'text', text: 'Go.' }] },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c0', toolName: 'note', input: {} }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c0', toolName: 'note', output }] },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'fabric_inventory', input: {} }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'fabric_inventory', output: { type: 'json', value: { devices: [{ wwpn: WWPN, host: 'host-a' }] } } }] },
  ];
  const lookup = [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c2', toolName: 'port_for_device', input: { wwpn: WWPN } }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c2', toolName: 'port_for_device', output: { type: 'json', value: [] } }] },
  ];
  const TOOLS = [
    { type: 'function', name: 'note', inputSchema: { type: 'object', properties: {} } },
    { type: 'function', name: 'fabric_inventory', inputSchema: { type: 'object', properties: {} } },
    { type: 'function', name: 'port_for_device', inputSchema: { type: 'object', properties: { wwpn: { type: 'string' } } } },
  ];
  /** Two model calls through the middleware: the one that reads `output`, then the lookup's. */
  async function twoCalls(output) {
    const errors = [];
    const guard = createGuard({ argumentsFrom: ARMED, onError: (e) => errors.push(e) });
    const answer = (content) => async () => ({ content, finishReason: { unified: 'tool-calls', raw: 'tool-calls' }, usage: {}, warnings: [] });
    const first = promptWith(output);
    await guard.middleware.wrapGenerate({ params: { prompt: first, tools: TOOLS }, doGenerate: answer(lookup[0].content) });
    await guard.middleware.wrapGenerate({ params: { prompt: [...first, ...lookup], tools: TOOLS }, doGenerate: answer([{ type: 'text', text: 'Not logged in.' }]) });
    return { guard, errors };
  }

  it('a JSON text nested a million deep, with an escape in it, is read as any other result', async () => {
    let deep = '"\\u00e9"';
    for (let i = 0; i < 1_000_000; i++) deep = `[${deep}]`;
    const { guard, errors } = await twoCalls({ type: 'text', value: deep });
    assert.deepEqual(errors, []);
    assert.deepEqual(guard.findings.map((f) => f.kind), ['empty-lookup']);
  });

  it('a result whose toJSON getter throws reads as nothing (no model read it as JSON), and the run is judged as before', async () => {
    const { guard, errors } = await twoCalls({ type: 'json', value: { get toJSON() { throw new Error('no JSON for you'); } } });
    assert.deepEqual(errors, []);
    assert.deepEqual(guard.findings.map((f) => f.kind), ['empty-lookup']);
  });

  it('a throwing Proxy as the output: noted unreachable once, said once, and the next call judged as before', async () => {
    const { guard, errors } = await twoCalls(new Proxy({}, { get() { throw new Error('proxy trap'); } }));
    assert.equal(errors.length, 1);
    assert.match(errors[0].message, /a message could not be read: proxy trap; it is left out of run /);
    // The lookup's empty answer, read at the next call, is still judged.
    assert.deepEqual(guard.findings.map((f) => f.kind), ['empty-lookup']);
    for (const row of guard.ledger.report()) {
      assert.equal(row.unreachable, 1, row.check);
      assert.deepEqual(row.reasons, ['a message could not be read: proxy trap']);
    }
    assert.equal(rows(guard)['empty-lookup'].checked, 1);
  });

  it('a whole message that throws on every read: left out of every call, said once, the rest judged', async () => {
    const errors = [];
    const guard = createGuard({ argumentsFrom: ARMED, onError: (e) => errors.push(e) });
    const hostile = new Proxy({}, { get() { throw new Error('hostile message'); } });
    const first = [...promptWith({ type: 'text', value: 'noted' }), hostile];
    const answer = (content) => async () => ({ content, finishReason: { unified: 'stop', raw: 'stop' }, usage: {}, warnings: [] });
    await guard.middleware.wrapGenerate({ params: { prompt: first, tools: TOOLS }, doGenerate: answer(lookup[0].content) });
    await guard.middleware.wrapGenerate({ params: { prompt: [...first, ...lookup], tools: TOOLS }, doGenerate: answer([{ type: 'text', text: 'done' }]) });
    assert.equal(errors.length, 1);
    assert.match(errors[0].message, /hostile message/);
    assert.deepEqual(guard.findings.map((f) => f.kind), ['empty-lookup']);
    assert.equal(guard.runIds().length, 1);
  });

  it('a null content part is passed over: the rest of the message is read', async () => {
    const errors = [];
    const guard = createGuard({ argumentsFrom: ARMED, onError: (e) => errors.push(e) });
    const prompt = [
      ...promptWith({ type: 'text', value: 'noted' }),
      { role: 'assistant', content: [null, ...lookup[0].content] },
      { role: 'tool', content: [null, ...lookup[1].content] },
    ];
    await guard.middleware.wrapGenerate({ params: { prompt, tools: TOOLS }, doGenerate: async () => ({ content: [], finishReason: { unified: 'stop', raw: 'stop' }, usage: {}, warnings: [] }) });
    assert.deepEqual(errors, []);
    assert.deepEqual(guard.findings.map((f) => f.kind), ['empty-lookup']);
  });
});

describe('never in the way: a name in argumentsFrom no offered tool has', () => {
  it("in prod, said once through onError, naming the closest offered tool, and explained in the ledger's rows", async () => {
    const errors = [];
    const guard = createGuard({ argumentsFrom: { port_for_devices: ['fabric_inventory'] }, onError: (e) => errors.push(e) });
    await guarded(guard, TRIAGE);
    await guarded(guard, TRIAGE);
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof TypeError);
    assert.match(errors[0].message, /"port_for_devices", named in argumentsFrom as an armed tool, is not among the tools the model is offered \(closest: "port_for_device"\)/);
    for (const row of guard.ledger.report()) assert.match(row.reasons.join('\n'), /port_for_devices[\s\S]*closest: "port_for_device"/);
  });

  it('a misspelt producer too', async () => {
    const errors = [];
    const guard = createGuard({ argumentsFrom: { port_for_device: ['fabric_inventroy'] }, onError: (e) => errors.push(e.message) });
    await guarded(guard, TRIAGE);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /"fabric_inventroy", named in argumentsFrom as a producer for port_for_device, is not among the tools the model is offered \(closest: "fabric_inventory"\)/);
    assert.ok(rows(guard)['empty-lookup'].unreachable >= 1);
    assert.match(rows(guard)['empty-lookup'].reasons[0], /fabric_inventroy/);
  });

  it("in dev, a TypeError thrown at the first model call that shows the tools", async () => {
    const guard = createGuard({ argumentsFrom: { port_for_devices: ['fabric_inventory'] }, posture: 'dev' });
    await assert.rejects(guarded(guard, TRIAGE), (error) => error instanceof TypeError && /closest: "port_for_device"/.test(error.message) && /The model is offered: "fabric_inventory", "port_for_device"/.test(error.message));
  });

  it('names every offered tool are spelt as: nothing said', async () => {
    const errors = [];
    const guard = createGuard({ argumentsFrom: ARMED, posture: 'dev', onError: (e) => errors.push(e) });
    await guarded(guard, TRIAGE);
    assert.deepEqual(errors, []);
  });
});

describe('beside the scaffolding middleware', () => {
  it('the guard first, the filter next: the same findings, and the markup stripped', async () => {
    for (const mode of ['generate', 'stream']) {
      const guard = createGuard({ argumentsFrom: ARMED });
      const script = [TRIAGE[0], TRIAGE[1], { text: 'Not logged in.<|tool_call_start|>[port_for_device(wwpn="x")]<|tool_call_end|>' }];
      const { model } = scriptedModel(sdk, script);
      const text = await runAgent(sdk, mode, {
        model: ai.wrapLanguageModel({ model, middleware: [guard.middleware, scaffoldingMiddleware()] }),
        tools: tools(),
        prompt: 'Go.',
      });
      assert.equal(text, 'Not logged in.');
      assert.deepEqual(guard.findings.map((f) => [f.kind, f.epoch]), [['empty-lookup', 2]]);
    }
  });
});

describe("the run's record", () => {
  it('a prompt that does not continue the run starts a new one: findings and ledger afresh, onFinding saw all', async () => {
    const seen = [];
    const guard = createGuard({ argumentsFrom: ARMED, onFinding: (f) => seen.push(f) });
    await guarded(guard, TRIAGE, { prompt: 'Where is host-a?', system: 'You triage SANs.' });
    const first = guard.ledger;
    assert.equal(guard.findings.length, 1);
    // Another conversation, same system prompt: a new run.
    await guarded(guard, [{ text: 'Hello.' }], { prompt: 'Something else entirely.', system: 'You triage SANs.' });
    assert.notEqual(guard.ledger, first);
    assert.deepEqual(guard.findings, []);
    assert.equal(rows(guard)['dangling-reference'].notApplicable, 1);
    assert.equal(seen.length, 1);
  });

  it('a conversation that goes on across requests stays one run', async () => {
    const guard = createGuard({ argumentsFrom: ARMED });
    const { model } = scriptedModel(sdk, [...TRIAGE, { text: 'Still not.' }]);
    const wrapped = ai.wrapLanguageModel({ model, middleware: guard.middleware });
    const first = await ai.generateText({ model: wrapped, tools: tools(), stopWhen: ai.stepCountIs(8), prompt: 'Where is host-a?' });
    const messages = [{ role: 'user', content: 'Where is host-a?' }, ...first.response.messages, { role: 'user', content: 'Sure?' }];
    const ledger = guard.ledger;
    await ai.generateText({ model: wrapped, tools: tools(), messages });
    assert.equal(guard.ledger, ledger);
    assert.equal(guard.findings.length, 1);
    assert.equal(rows(guard)['unsupported-argument'].notApplicable, 3);
  });

  it('newRun() starts a new run at the next model call', async () => {
    const guard = createGuard({ argumentsFrom: ARMED });
    await guarded(guard, TRIAGE);
    guard.newRun();
    assert.deepEqual(guard.findings, []);
    assert.equal(rows(guard)['empty-lookup'].checked, 0);
  });

  it('a result dropped for one step and back in the next is evidence again (AI SDK 6 windows one step)', async () => {
    const guard = createGuard({ argumentsFrom: ARMED });
    const dropInventory = (messages) =>
      messages.filter((m) => !(Array.isArray(m.content) && m.content.some((p) => p.toolName === 'fabric_inventory')));
    const { prompts } = await guarded(
      guard,
      [
        { calls: [{ toolName: 'fabric_inventory', input: {} }] },
        { calls: [{ toolName: 'port_for_device', input: { wwpn: 'nowhere-1234' } }] },
        { calls: [{ toolName: 'port_for_device', input: { wwpn: WWPN } }] },
        { text: 'Done.' },
      ],
      { prepareStep: ({ stepNumber, messages }) => (stepNumber === 2 ? { messages: dropInventory(messages) } : undefined) },
    );
    assert.ok(JSON.stringify(prompts[1]).includes('host-a') && !JSON.stringify(prompts[2]).includes('host-a'));
    assert.ok(JSON.stringify(prompts[3]).includes('host-a'));
    assert.deepEqual(guard.findings.map((f) => [f.kind, f.epoch]), [
      ['unsupported-argument', 1],
      ['dangling-reference', 2],
      ['empty-lookup', 3],
    ]);
    // Step 3 saw the inventory again: the compose seam passed there. At
    // step 2 the first lookup's empty answer had no producer in the window.
    const { 'dangling-reference': compose, 'empty-lookup': write } = rows(guard);
    assert.deepEqual([compose.notApplicable, compose.checked, compose.findings], [2, 2, 1]);
    assert.deepEqual([write.unreachable, write.checked, write.findings], [1, 1, 1]);
  });

  it('a result the app filtered out before any prompt held it was never in the window: nothing dangles', async () => {
    const errors = [];
    const guard = createGuard({ argumentsFrom: ARMED, onError: (e) => errors.push(e) });
    await guarded(guard, [{ calls: [{ toolName: 'fabric_inventory', input: {} }] }, { text: 'Done.' }], {
      prepareStep: ({ stepNumber, messages }) => (stepNumber === 1 ? { messages: messages.filter((m) => m.role === 'user') } : undefined),
    });
    assert.deepEqual(guard.findings, []);
    // A prompt that drops the model's answer and all after it is the same
    // prompt a new conversation with that opening sends: it is judged as
    // one, and nothing dangles in it either.
    assert.equal(rows(guard)['dangling-reference'].notApplicable, 1);
    assert.equal(rows(guard)['dangling-reference'].checked, 0);
    assert.deepEqual(errors, []);
  });

  it('toolChoice none withholds every tool from the compose seam', async () => {
    const script = [{ calls: [{ toolName: 'fabric_inventory', input: {} }] }, { text: 'Noted.', calls: [] }, { text: 'Done.' }];
    const drop = (messages) => messages.filter((m) => !(Array.isArray(m.content) && m.content.some((p) => p.toolName === 'fabric_inventory')));
    const run = async (toolChoice) => {
      const guard = createGuard({ argumentsFrom: ARMED });
      const { model } = scriptedModel(sdk, script);
      const wrapped = ai.wrapLanguageModel({ model, middleware: guard.middleware });
      const first = await ai.generateText({ model: wrapped, tools: tools(), stopWhen: ai.stepCountIs(2), prompt: 'Go.' });
      const history = [{ role: 'user', content: 'Go.' }, ...first.response.messages, { role: 'user', content: 'And now?' }];
      await ai.generateText({ model: wrapped, tools: tools(), toolChoice, messages: drop(history) });
      return guard;
    };
    assert.deepEqual((await run('auto')).findings.map((f) => f.kind), ['dangling-reference']);
    const none = await run('none');
    assert.deepEqual(none.findings, []);
    assert.equal(rows(none)['dangling-reference'].checked, 0);
  });

  it('repeated messages with the same text are told apart', async () => {
    const guard = createGuard({ argumentsFrom: ARMED });
    const { model } = scriptedModel(sdk, [{ text: 'a' }, { text: 'b' }]);
    const wrapped = ai.wrapLanguageModel({ model, middleware: guard.middleware });
    const messages = [
      { role: 'user', content: 'ok' },
      { role: 'assistant', content: 'fine' },
      { role: 'user', content: 'ok' },
    ];
    await ai.generateText({ model: wrapped, messages });
    const ledger = guard.ledger;
    // The first 'ok' goes; the second stays, with the answer and what
    // followed: the run goes on.
    await ai.generateText({ model: wrapped, messages: [...messages.slice(1), { role: 'assistant', content: 'a' }, { role: 'user', content: 'ok' }] });
    assert.equal(guard.ledger, ledger);
  });

  it('guards per request keep concurrent conversations apart', async () => {
    const [a, b] = [createGuard({ argumentsFrom: ARMED }), createGuard({ argumentsFrom: ARMED })];
    await Promise.all([
      guarded(a, TRIAGE, { prompt: 'Where is host-a?' }),
      guarded(b, [{ text: 'Nothing to look up.' }], { prompt: 'Hi.' }),
    ]);
    assert.equal(a.findings.length, 1);
    assert.equal(b.findings.length, 0);
  });
});

describe('runs: what the guard cannot tell apart, it says', () => {
  const TOOLS = [
    { type: 'function', name: 'fabric_inventory', inputSchema: { type: 'object', properties: {} } },
    { type: 'function', name: 'port_for_device', inputSchema: { type: 'object', properties: { wwpn: { type: 'string' } } } },
  ];
  const user = (text) => ({ role: 'user', content: [{ type: 'text', text }] });
  const calls = (id, toolName, input) => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName, input }] });
  const result = (id, toolName, value) => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName, output: { type: 'json', value } }] });
  const answering = (content, wait) => async () => {
    if (wait !== undefined) await wait;
    return { content, finishReason: { unified: 'stop', raw: 'stop' }, usage: {}, warnings: [] };
  };
  const call = (guard, prompt, content, wait) => guard.middleware.wrapGenerate({ params: { prompt, tools: TOOLS }, doGenerate: answering(content, wait) });

  it('the same history sent twice at once: judged as two runs from there, said once', async () => {
    const errors = [];
    const guard = createGuard({ argumentsFrom: ARMED, onError: (e) => errors.push(e.message) });
    const opening = [user('Go.')];
    await call(guard, opening, calls('k1', 'fabric_inventory', {}).content);
    const history = [...opening, calls('k1', 'fabric_inventory', {}), result('k1', 'fabric_inventory', { devices: [{ wwpn: WWPN }] })];
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    const first = call(guard, history, [{ type: 'text', text: 'a' }], held);
    const second = call(guard, history, [{ type: 'text', text: 'b' }]);
    await second;
    release();
    await first;
    assert.equal(guard.runIds().length, 2);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /two model calls continue run .* at once/);
  });

  it('a conversation whose run maxRuns ended goes on as a new run, said once', async () => {
    const errors = [];
    const guard = createGuard({ argumentsFrom: ARMED, maxRuns: 2, onError: (e) => errors.push(e.message) });
    for (const n of [1, 2, 3]) await call(guard, [user(`Conversation ${n}.`)], calls(`k${n}`, 'fabric_inventory', {}).content);
    assert.equal(guard.runIds().length, 2);
    assert.deepEqual(errors, []);
    // Conversation 1's run was the least recently used: it was ended.
    await call(guard, [user('Conversation 1.'), calls('k1', 'fabric_inventory', {}), result('k1', 'fabric_inventory', [])], [{ type: 'text', text: 'done' }]);
    assert.equal(guard.runIds().length, 2);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /continues a conversation whose run the guard no longer holds \(it holds the 2 most recently used runs: maxRuns\)/);
  });

  it('a failed model call is tried again in the same run', async () => {
    const guard = createGuard({ argumentsFrom: ARMED });
    const prompt = [user('Go.')];
    await assert.rejects(guard.middleware.wrapGenerate({ params: { prompt, tools: TOOLS }, doGenerate: async () => { throw new Error('429'); } }), /429/);
    await call(guard, prompt, calls('k1', 'fabric_inventory', {}).content);
    assert.equal(guard.runIds().length, 1);
    const compose = rows(guard)['dangling-reference'];
    assert.equal(compose.notApplicable, 2);
  });

  it('providerOptions.seamguard.runId names the run', async () => {
    const guard = createGuard({ argumentsFrom: ARMED });
    await guard.middleware.wrapGenerate({ params: { prompt: [user('Go.')], tools: TOOLS, providerOptions: { seamguard: { runId: 'chat-7' } } }, doGenerate: answering([{ type: 'text', text: 'hi' }]) });
    assert.deepEqual(guard.runIds(), ['chat-7']);
    assert.equal(guard.run('chat-7').id, 'chat-7');
    assert.equal(guard.run('chat-8'), undefined);
  });
});

describe('a text result that is JSON text written by another writer', () => {
  it('grounds values it escaped as \\u sequences (as Python writes with ensure_ascii)', async () => {
    const SHARE = { path: 'C:\\share\\host-a', label: 'Zo\u00eb "quoted" box', tag: '\u{1F4E6} crate-7' };
    const asciiJson = JSON.stringify(SHARE).replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    assert.ok(asciiJson.includes('\\u00eb') && !asciiJson.includes('\u00eb'));
    const guard = createGuard({ argumentsFrom: { mount_share: ['list_shares'] } });
    const toolset = {
      list_shares: toolOf(ai, { description: 'Lists shares', execute: async () => asciiJson }),
      mount_share: toolOf(ai, { description: 'Mounts', properties: { path: {}, label: {}, tag: {} }, execute: async () => [] }),
    };
    await guarded(guard, [
      { calls: [{ toolName: 'list_shares', input: {} }] },
      { calls: [{ toolName: 'mount_share', input: SHARE }] },
      { text: 'Mounted.' },
    ], { toolset });
    // Each value was served: no unsupported argument, and the empty mount is
    // an empty lookup of values the run produced.
    assert.deepEqual(guard.findings.map((f) => [f.kind, f.predicate]), [
      ['empty-lookup', 'path'],
      ['empty-lookup', 'label'],
      ['empty-lookup', 'tag'],
    ]);
  });
});

describe('searchableText: what a result reads as', () => {
  const cases = [
    ['a plain string', 'FLEET: io-77', 'FLEET: io-77'],
    ['a JSON value with no escapes', { host: 'host-a', port: 7 }, '{"host":"host-a","port":7}'],
    ['a backslash, decoded on a line of its own', { path: 'C:\\share' }, '{"path":"C:\\\\share"}\nC:\\share'],
    ['a quote', ['say "hi"'], '["say \\"hi\\""]\nsay "hi"'],
    ['non-ASCII, which JSON.stringify writes as it is', { 'Zo\u00eb': '\u{1F4E6}' }, '{"Zo\u00eb":"\u{1F4E6}"}'],
    ['non-ASCII in JSON text that another writer escaped', '{"Zo\\u00eb":"\\ud83d\\udce6"}', '{"Zo\\u00eb":"\\ud83d\\udce6"}\nZo\u00eb\n\u{1F4E6}'],
    ['non-ASCII beside an escape', { name: 'Zo\u00eb "Z"' }, '{"name":"Zo\u00eb \\"Z\\""}\nZo\u00eb "Z"'],
    ['a string that is JSON text', '{"path":"C:\\\\x"}', '{"path":"C:\\\\x"}\nC:\\x'],
    ['a string that only looks like JSON', '[not json', '[not json'],
    ['undefined', undefined, ''],
    ['a cycle', (() => { const o = {}; o.o = o; return o; })(), ''],
  ];
  for (const [name, value, text] of cases) {
    it(name, () => assert.equal(searchableText(value), text));
  }
});
