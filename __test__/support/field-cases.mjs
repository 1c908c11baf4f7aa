// The guard issue's six field cases, for any framework: the tools (with
// `execute` functions that really run), the scripts a fake model plays, and
// what each case must find. A framework's test hands `fieldCases` a runner
// that plays a script through that framework's own agent loop; every case
// then asserts the findings and the ledger the guard issue asserts, and that
// they are exactly those the AI SDK guard gives for the same script.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { createGuard as createAiSdkGuard } from 'seamguard/ai-sdk';

import { runAgent, scriptedModel, toolOf } from './agents.mjs';

export const WWPN = '20:00:00:25:b5:aa:00:1f';
const INVENTORY = { devices: [{ wwpn: WWPN, host: 'host-a' }, { wwpn: '20:00:00:25:b5:aa:00:2c', host: 'host-b' }] };
const SHARE = { path: 'C:\\share\\host-a', label: 'Zo\u00eb "quoted" box', tag: '\u{1F4E6} crate-7', site: 'Montr\u00e9al-\u00c9st' };

/**
 * A tool, for any framework: its name, description, JSON Schema properties
 * (all strings) and `execute`.
 */
const spec = (name, description, properties, execute) => ({ name, description, properties, execute });
const strings = (...names) => Object.fromEntries(names.map((name) => [name, { type: 'string' }]));

/** The triage tools: an inventory and a reverse lookup with a broken filter. */
const triageTools = (lookupAnswer = []) => [
  spec('fabric_inventory', 'Lists the fabric devices', {}, async () => INVENTORY),
  spec('port_for_device', 'Finds the switch port a device is logged in to', strings('wwpn'), async () => lookupAnswer),
  spec('note', 'Writes a note', strings('text'), async () => 'noted'),
];

/**
 * A script's steps with the call ids the AI SDK's scripted model gives
 * (`call-<step>-<n>`), so findings that name a call name the same one.
 */
export function stepsOf(script) {
  return script.map((step, index) => ({
    text: step.text,
    calls: (step.calls ?? []).map((call, n) => ({ toolCallId: `call-${index}-${n}`, toolName: call.toolName, input: call.input })),
  }));
}

const TRIAGE_SCRIPT = [
  { text: 'Let me list the fabric.', calls: [{ toolName: 'fabric_inventory', input: {} }] },
  { calls: [{ toolName: 'port_for_device', input: { wwpn: WWPN } }] },
  { text: 'The device is not logged in anywhere.' },
];

const BACKUP_SCRIPT = [
  { text: 'Last week I noted the job bkp-4417-ganymede-tier2.', calls: [{ toolName: 'fleet_report', input: {} }] },
  {
    calls: [
      { toolName: 'backup_status', input: { machine: '4417-ganymede' } },
      { toolName: 'restore_job', input: { machine: 'titan-99' } },
      { toolName: 'backup_status', input: { machine: 'europa-03' } },
    ],
  },
  { text: 'Done.' },
];

const backupTools = () => [
  spec('fleet_report', 'Lists the fleet', {}, async () => 'FLEET: callisto-02, europa-03'),
  spec('backup_status', 'Backup status of a machine', strings('machine'), async ({ machine }) => `no record for ${machine}`),
  spec('restore_job', 'Restore jobs of a machine', strings('machine'), async () => 'no jobs'),
];

const WINDOW_SCRIPT = [
  { calls: [{ toolName: 'fabric_inventory', input: {} }] },
  { calls: [{ toolName: 'note', input: { text: 'inventory read' } }] },
  { text: 'I will look the port up next.' },
];

const SHARE_SCRIPT = [{ calls: [{ toolName: 'list_shares', input: {} }] }, { calls: [{ toolName: 'mount_share', input: SHARE }] }, { text: 'Mounted.' }];
const shareTools = (mountAnswer) => [
  spec('list_shares', 'Lists the shares', {}, async () => [SHARE]),
  spec('mount_share', 'Mounts a share', strings('path', 'label', 'tag', 'site'), async () => mountAnswer),
];

const QUIET_SCRIPT = [{ calls: [{ toolName: 'note', input: { text: 'hello' } }] }, { text: 'All quiet.' }];

const RECALL_SCRIPT = [
  { text: 'I remember 20:00:00:25:b5:ff:00:99 from before.', calls: [{ toolName: 'fabric_inventory', input: {} }] },
  { calls: [{ toolName: 'port_for_device', input: { wwpn: '20:00:00:25:b5:ff:00:99' } }, { toolName: 'port_for_device', input: { wwpn: WWPN } }] },
  { calls: [{ toolName: 'port_for_device', input: { wwpn: 'nowhere-4471' } }] },
  { text: 'Done.' },
];

/**
 * Every run of the field cases: `window` names the tool whose calls and
 * results an app's window drops from the prompt of step `from` on.
 */
export const RUNS = {
  triage: { argumentsFrom: { port_for_device: ['fabric_inventory'] }, script: TRIAGE_SCRIPT, tools: triageTools, prompt: 'Which port is host-a on?' },
  backup: {
    argumentsFrom: { backup_status: ['fleet_report'], restore_job: ['fleet_report'] },
    script: BACKUP_SCRIPT,
    tools: backupTools,
    system: 'You check backups.',
    prompt: 'Are the fleet machines backed up?',
  },
  window: {
    argumentsFrom: { port_for_device: ['fabric_inventory'] },
    script: WINDOW_SCRIPT,
    tools: triageTools,
    prompt: 'Check the fabric.',
    window: { tool: 'fabric_inventory', from: 2 },
  },
  mounted: { argumentsFrom: { mount_share: ['list_shares'] }, script: SHARE_SCRIPT, tools: () => shareTools([{ mounted: true }]), prompt: 'Mount the share.' },
  unmounted: { argumentsFrom: { mount_share: ['list_shares'] }, script: SHARE_SCRIPT, tools: () => shareTools([]), prompt: 'Mount the share.' },
  quiet: { argumentsFrom: { port_for_device: ['fabric_inventory'] }, script: QUIET_SCRIPT, tools: triageTools, prompt: 'Anything to do?' },
  recall: { argumentsFrom: { port_for_device: ['fabric_inventory'] }, script: RECALL_SCRIPT, tools: triageTools, prompt: 'Go.' },
};

export const shapeOf = (finding) => ({
  kind: finding.kind,
  subjects: finding.subjects.map((s) => s.id),
  predicate: finding.predicate,
  epoch: finding.epoch,
  stratum: finding.kind === 'unsupported-argument' ? finding.witnesses[1].value : undefined,
});

export const rowsOf = (guard) => Object.fromEntries(guard.ledger.report().map((row) => [row.check, row]));

/** What the AI SDK guard (ai 6, generateText) finds for one run: the baseline. */
async function baseline(name) {
  const { argumentsFrom, script, tools, system, prompt, window } = RUNS[name];
  const sdk = { major: 6, ai: await import('ai'), Mock: (await import('ai/test')).MockLanguageModelV3 };
  const guard = createAiSdkGuard({ argumentsFrom });
  const { model } = scriptedModel(sdk, script);
  const named = Object.fromEntries(
    tools().map(({ name: tool, description, properties, execute }) => [tool, toolOf(sdk.ai, { description, properties, execute })]),
  );
  const prepareStep =
    window &&
    (({ stepNumber, messages }) =>
      stepNumber < window.from
        ? undefined
        : { messages: messages.filter((message) => !(Array.isArray(message.content) && message.content.some((part) => part.toolName === window.tool))) });
  await runAgent(sdk, 'generate', { model: sdk.ai.wrapLanguageModel({ model, middleware: guard.middleware }), tools: named, system, prompt, prepareStep });
  return { findings: guard.findings, report: guard.ledger.report() };
}

const baselines = new Map();
/** The guard's findings and report equal the AI SDK guard's for the same run. */
async function assertSameAsAiSdk(name, guard) {
  if (!baselines.has(name)) baselines.set(name, await baseline(name));
  assert.deepEqual({ findings: guard.findings, report: guard.ledger.report() }, baselines.get(name));
}

/**
 * Per mode, the `play` that `fieldCases` takes: a guard made with
 * `createGuard` from the run's `argumentsFrom` (and `onFinding`, when given),
 * and `playIn(mode, run, guard)`, which plays the run in the framework and
 * resolves to `{ text, prompts }`.
 */
export function playsFor(modes, createGuard, playIn) {
  return Object.fromEntries(
    modes.map((mode) => [
      mode,
      async (run, { onFinding } = {}) => {
        const guard = createGuard({ argumentsFrom: run.argumentsFrom, ...(onFinding ? { onFinding } : {}) });
        return { guard, ...(await playIn(mode, run, guard)) };
      },
    ]),
  );
}

/**
 * Registers the six field cases. `play(run, { onFinding })` plays one of
 * `RUNS` through the framework under test, with a guard made from
 * `run.argumentsFrom` (and `onFinding`, when given), and resolves to
 * `{ guard, text, prompts }`: the guard, the answer's text and the text of
 * each prompt the fake model got (JSON, or however the framework writes it).
 * `bare(run)` plays it without a guard and resolves to the answer's text.
 */
export function fieldCases({ play, bare }) {
  it('1. the triage case: one empty-lookup finding naming both tools, the answer unchanged', async () => {
    const seen = [];
    const { guard, text } = await play(RUNS.triage, { onFinding: (finding) => seen.push(finding) });
    assert.equal(text, await bare(RUNS.triage));
    assert.deepEqual(guard.findings.map(shapeOf), [
      { kind: 'empty-lookup', subjects: ['port_for_device', 'fabric_inventory'], predicate: 'wwpn', epoch: 2, stratum: undefined },
    ]);
    assert.deepEqual(seen, guard.findings);
    assert.match(guard.findings[0].message, /call-1-0/);
    const rows = rowsOf(guard);
    assert.deepEqual([rows['empty-lookup'].checked, rows['empty-lookup'].findings, rows['empty-lookup'].lastFiredAt], [1, 1, 2]);
    assert.deepEqual([rows['unsupported-argument'].checked, rows['unsupported-argument'].findings], [1, 0]);
    guard.ledger.assertAlive({ workExisted: true });
    await assertSameAsAiSdk('triage', guard);
  });

  it('2. an argument nothing served is found nowhere; one only the model wrote is self-referenced', async () => {
    const { guard } = await play(RUNS.backup);
    const SELF = 'served by nothing \u2014 present only in the model\u2019s own earlier answer';
    const NOWHERE = 'served by nothing in the window the model saw';
    assert.deepEqual(guard.findings.map(shapeOf), [
      { kind: 'unsupported-argument', subjects: ['backup_status'], predicate: 'machine', epoch: 1, stratum: SELF },
      { kind: 'unsupported-argument', subjects: ['restore_job'], predicate: 'machine', epoch: 1, stratum: NOWHERE },
    ]);
    assert.deepEqual(guard.findings.map((f) => f.witnesses[0].value), ['4417-ganymede', 'titan-99']);
    assert.equal(rowsOf(guard)['empty-lookup'].notApplicable, 3);
    await assertSameAsAiSdk('backup', guard);
  });

  it('3. the app drops the inventory while the lookup is still on offer: dangling-reference', async () => {
    const { guard, prompts } = await play(RUNS.window);
    assert.ok(prompts[1].includes('host-a') && !prompts[2].includes('host-a'), 'the window really dropped the inventory');
    assert.deepEqual(guard.findings.map(shapeOf), [
      { kind: 'dangling-reference', subjects: ['port_for_device', 'fabric_inventory'], predicate: undefined, epoch: 2, stratum: undefined },
    ]);
    assert.match(guard.findings[0].message, /fabric_inventory/);
    const compose = rowsOf(guard)['dangling-reference'];
    assert.deepEqual([compose.notApplicable, compose.checked, compose.findings], [2, 1, 1]);
    await assertSameAsAiSdk('window', guard);
  });

  it('4. values copied out of JSON results with backslashes, quotes, non-ASCII and emoji: no finding', async () => {
    assert.ok(!JSON.stringify(SHARE).includes(SHARE.path) && !JSON.stringify(SHARE).includes(SHARE.label));
    const { guard: mounted } = await play(RUNS.mounted);
    assert.deepEqual(mounted.findings, []);
    assert.equal(rowsOf(mounted)['unsupported-argument'].checked, 1);
    await assertSameAsAiSdk('mounted', mounted);
    const { guard: empty } = await play(RUNS.unmounted);
    assert.deepEqual(empty.findings.map((f) => [f.kind, f.predicate]), [
      ['empty-lookup', 'path'],
      ['empty-lookup', 'label'],
      ['empty-lookup', 'tag'],
      ['empty-lookup', 'site'],
    ]);
    await assertSameAsAiSdk('unmounted', empty);
  });

  it('5. a run in which no armed tool is called: the ledger shows it, and assertAlive passes in prod', async () => {
    const { guard, text } = await play(RUNS.quiet);
    assert.equal(text, 'All quiet.');
    assert.deepEqual(guard.findings, []);
    assert.deepEqual(
      Object.values(rowsOf(guard)).map((row) => [row.check, row.checked, row.notApplicable, row.unreachable]),
      [
        ['empty-lookup', 0, 0, 0],
        ['unsupported-argument', 0, 2, 0],
        ['dangling-reference', 0, 2, 0],
      ],
    );
    assert.equal(guard.ledger.assertAlive(), undefined);
    await assertSameAsAiSdk('quiet', guard);
  });
}

/**
 * The sixth case: every mode of the framework (`plays`, by name) gives the
 * same findings and ledger for the same scripts, and those of the AI SDK.
 */
export function sameInEveryMode(plays) {
  it('6. streaming and generating the same script give the same findings', async () => {
    for (const name of ['triage', 'recall']) {
      const results = {};
      for (const [mode, play] of Object.entries(plays)) {
        const { guard } = await play(RUNS[name]);
        results[mode] = { findings: guard.findings, report: guard.ledger.report() };
      }
      const [first, ...rest] = Object.values(results);
      assert.ok(first.findings.length > 0);
      for (const result of rest) assert.deepEqual(result, first);
      if (!baselines.has(name)) baselines.set(name, await baseline(name));
      assert.deepEqual(first, baselines.get(name));
    }
  });
}
