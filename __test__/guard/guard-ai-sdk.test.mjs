// The guard inside the AI SDK's own loops: the six field cases of the guard
// issue, each through generateText, streamText and ToolLoopAgent (generate
// and stream), under every AI SDK major this Node runs (6 always; 7 on Node
// 22 and later), with a scripted mock model and tools whose `execute`
// functions really run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/ai-sdk';

import { MODES, routedModel, runAgent, scriptedModel, sdkMajors, toolOf, toolsByName } from '../support/agents.mjs';
import { RUNS } from '../support/field-cases.mjs';
import { SERVER, serverCases } from '../support/server-cases.mjs';

const WWPN = '20:00:00:25:b5:aa:00:1f';
const INVENTORY = { devices: [{ wwpn: WWPN, host: 'host-a' }, { wwpn: '20:00:00:25:b5:aa:00:2c', host: 'host-b' }] };

/** The triage tools: an inventory and a reverse lookup with a broken filter. */
function triageTools(ai, { lookupAnswer = [] } = {}) {
  return {
    fabric_inventory: toolOf(ai, { description: 'Lists the fabric devices', execute: async () => INVENTORY }),
    port_for_device: toolOf(ai, {
      description: 'Finds the switch port a device is logged in to',
      properties: { wwpn: { type: 'string' } },
      execute: async () => lookupAnswer,
    }),
    note: toolOf(ai, { description: 'Writes a note', properties: { text: { type: 'string' } }, execute: async () => 'noted' }),
  };
}

const TRIAGE_SCRIPT = [
  { text: 'Let me list the fabric.', calls: [{ toolName: 'fabric_inventory', input: {} }] },
  { calls: [{ toolName: 'port_for_device', input: { wwpn: WWPN } }] },
  { text: 'The device is not logged in anywhere.' },
];

const shapeOf = (finding) => ({
  kind: finding.kind,
  subjects: finding.subjects.map((s) => s.id),
  predicate: finding.predicate,
  epoch: finding.epoch,
  stratum: finding.kind === 'unsupported-argument' ? finding.witnesses[1].value : undefined,
});

const rowsOf = (guard) => Object.fromEntries(guard.ledger.report().map((row) => [row.check, row]));

for (const sdk of await sdkMajors()) {
  const { ai } = sdk;
  describe(`AI SDK ${sdk.major}: the guard's field cases`, () => {
    for (const mode of MODES) {
      describe(mode, () => {
        it('1. the triage case: one empty-lookup finding naming both tools, the answer unchanged', async () => {
          const seen = [];
          const guard = createGuard({ argumentsFrom: { port_for_device: ['fabric_inventory'] }, onFinding: (f) => seen.push(f) });
          const { model } = scriptedModel(sdk, TRIAGE_SCRIPT);
          const text = await runAgent(sdk, mode, {
            model: ai.wrapLanguageModel({ model, middleware: guard.middleware }),
            tools: triageTools(ai),
            prompt: 'Which port is host-a on?',
          });
          const { model: bare } = scriptedModel(sdk, TRIAGE_SCRIPT);
          assert.equal(text, await runAgent(sdk, mode, { model: bare, tools: triageTools(ai), prompt: 'Which port is host-a on?' }));
          assert.deepEqual(guard.findings.map(shapeOf), [
            { kind: 'empty-lookup', subjects: ['port_for_device', 'fabric_inventory'], predicate: 'wwpn', epoch: 2, stratum: undefined },
          ]);
          assert.deepEqual(seen, guard.findings);
          assert.match(guard.findings[0].message, /call-1-0/);
          const rows = rowsOf(guard);
          assert.equal(rows['empty-lookup'].checked, 1);
          assert.equal(rows['empty-lookup'].findings, 1);
          assert.equal(rows['empty-lookup'].lastFiredAt, 2);
          // The WWPN was served by the inventory: the choice seam passed it.
          assert.equal(rows['unsupported-argument'].findings, 0);
          assert.equal(rows['unsupported-argument'].checked, 1);
          guard.ledger.assertAlive({ workExisted: true });
        });

        it('2. an argument nothing served is found nowhere; one only the model wrote is self-referenced', async () => {
          const guard = createGuard({ argumentsFrom: RUNS.backup.argumentsFrom });
          const tools = {
            fleet_report: toolOf(ai, { description: 'Lists the fleet', execute: async () => 'FLEET: callisto-02, europa-03' }),
            backup_status: toolOf(ai, {
              description: 'Backup status of a machine',
              properties: { machine: { type: 'string' } },
              execute: async ({ machine }) => `no record for ${machine}`,
            }),
            restore_job: toolOf(ai, {
              description: 'Restore jobs of a machine',
              properties: { machine: { type: 'string' } },
              execute: async () => 'no jobs',
            }),
          };
          const { model } = scriptedModel(sdk, RUNS.backup.script);
          await runAgent(sdk, mode, {
            model: ai.wrapLanguageModel({ model, middleware: guard.middleware }),
            tools,
            system: RUNS.backup.system,
            prompt: RUNS.backup.prompt,
          });
          const SELF = 'served by nothing \u2014 present only in the model\u2019s own earlier answer';
          const NOWHERE = 'served by nothing in the window the model saw';
          assert.deepEqual(guard.findings.map(shapeOf), [
            { kind: 'unsupported-argument', subjects: ['backup_status'], predicate: 'machine', epoch: 1, stratum: SELF },
            { kind: 'unsupported-argument', subjects: ['restore_job'], predicate: 'machine', epoch: 1, stratum: NOWHERE },
          ]);
          assert.deepEqual(guard.findings.map((f) => f.witnesses[0].value), ['4417-ganymede', 'titan-99']);
          // A bespoke string result is not a lookup the write seam can read.
          assert.equal(rowsOf(guard)['empty-lookup'].notApplicable, 3);
        });

        it('3. the app drops the inventory while the lookup is still on offer: dangling-reference', async () => {
          const guard = createGuard({ argumentsFrom: { port_for_device: ['fabric_inventory'] } });
          const { model, prompts } = scriptedModel(sdk, [
            { calls: [{ toolName: 'fabric_inventory', input: {} }] },
            { calls: [{ toolName: 'note', input: { text: 'inventory read' } }] },
            { text: 'I will look the port up next.' },
          ]);
          // The app's window: from step 2 on, the inventory call and its result go.
          const prepareStep = ({ stepNumber, messages }) => {
            if (stepNumber < 2) return undefined;
            const keep = messages.filter(
              (message) => !(Array.isArray(message.content) && message.content.some((part) => part.toolName === 'fabric_inventory')),
            );
            return { messages: keep };
          };
          await runAgent(sdk, mode, {
            model: ai.wrapLanguageModel({ model, middleware: guard.middleware }),
            tools: triageTools(ai),
            prompt: 'Check the fabric.',
            prepareStep,
          });
          assert.ok(!JSON.stringify(prompts[2]).includes('host-a'), 'the window really dropped the inventory');
          assert.deepEqual(guard.findings.map(shapeOf), [
            { kind: 'dangling-reference', subjects: ['port_for_device', 'fabric_inventory'], predicate: undefined, epoch: 2, stratum: undefined },
          ]);
          assert.match(guard.findings[0].message, /fabric_inventory/);
          const compose = rowsOf(guard)['dangling-reference'];
          assert.deepEqual([compose.notApplicable, compose.checked, compose.findings], [2, 1, 1]);
        });

        it('4. values copied out of JSON results with backslashes, quotes, non-ASCII and emoji: no finding', async () => {
          const SHARE = { path: 'C:\\share\\host-a', label: 'Zo\u00eb "quoted" box', tag: '\u{1F4E6} crate-7', site: 'Montr\u00e9al-\u00c9st' };
          // The fixture is only worth it if the JSON text hides the values.
          assert.ok(!JSON.stringify(SHARE).includes(SHARE.path) && !JSON.stringify(SHARE).includes(SHARE.label));
          const run = async (mountAnswer) => {
            const guard = createGuard({ argumentsFrom: { mount_share: ['list_shares'] } });
            const tools = {
              list_shares: toolOf(ai, { description: 'Lists the shares', execute: async () => [SHARE] }),
              mount_share: toolOf(ai, {
                description: 'Mounts a share',
                properties: { path: { type: 'string' }, label: { type: 'string' }, tag: { type: 'string' }, site: { type: 'string' } },
                execute: async () => mountAnswer,
              }),
            };
            const { model } = scriptedModel(sdk, [
              { calls: [{ toolName: 'list_shares', input: {} }] },
              { calls: [{ toolName: 'mount_share', input: SHARE }] },
              { text: 'Mounted.' },
            ]);
            await runAgent(sdk, mode, { model: ai.wrapLanguageModel({ model, middleware: guard.middleware }), tools, prompt: 'Mount the share.' });
            return guard;
          };
          const mounted = await run([{ mounted: true }]);
          assert.deepEqual(mounted.findings, []);
          assert.equal(rowsOf(mounted)['unsupported-argument'].checked, 1);
          // The same values ground a real empty lookup, which is reported.
          const empty = await run([]);
          assert.deepEqual(empty.findings.map((f) => [f.kind, f.predicate]), [
            ['empty-lookup', 'path'],
            ['empty-lookup', 'label'],
            ['empty-lookup', 'tag'],
            ['empty-lookup', 'site'],
          ]);
        });

        it('5. a run in which no armed tool is called: the ledger shows it, and assertAlive passes in prod', async () => {
          const guard = createGuard({ argumentsFrom: { port_for_device: ['fabric_inventory'] } });
          const { model } = scriptedModel(sdk, [{ calls: [{ toolName: 'note', input: { text: 'hello' } }] }, { text: 'All quiet.' }]);
          const text = await runAgent(sdk, mode, {
            model: ai.wrapLanguageModel({ model, middleware: guard.middleware }),
            tools: triageTools(ai),
            prompt: 'Anything to do?',
          });
          assert.equal(text, 'All quiet.');
          assert.deepEqual(guard.findings, []);
          const rows = rowsOf(guard);
          assert.deepEqual(
            Object.values(rows).map((row) => [row.check, row.checked, row.notApplicable, row.unreachable]),
            [
              ['empty-lookup', 0, 0, 0],
              ['unsupported-argument', 0, 2, 0],
              ['dangling-reference', 0, 2, 0],
            ],
          );
          assert.equal(guard.ledger.assertAlive(), undefined);
        });
      });
    }

    it('6. streaming and generating the same script give the same findings', async () => {
      const scripts = [
        { argumentsFrom: { port_for_device: ['fabric_inventory'] }, script: TRIAGE_SCRIPT },
        {
          argumentsFrom: { port_for_device: ['fabric_inventory'] },
          script: [
            { text: 'I remember 20:00:00:25:b5:ff:00:99 from before.', calls: [{ toolName: 'fabric_inventory', input: {} }] },
            { calls: [{ toolName: 'port_for_device', input: { wwpn: '20:00:00:25:b5:ff:00:99' } }, { toolName: 'port_for_device', input: { wwpn: WWPN } }] },
            { calls: [{ toolName: 'port_for_device', input: { wwpn: 'nowhere-4471' } }] },
            { text: 'Done.' },
          ],
        },
      ];
      for (const { argumentsFrom, script } of scripts) {
        const findings = {};
        for (const mode of MODES) {
          const guard = createGuard({ argumentsFrom });
          const { model } = scriptedModel(sdk, script);
          await runAgent(sdk, mode, { model: ai.wrapLanguageModel({ model, middleware: guard.middleware }), tools: triageTools(ai), prompt: 'Go.' });
          findings[mode] = { findings: guard.findings, report: guard.ledger.report() };
        }
        assert.ok(findings.generate.findings.length > 0);
        assert.deepEqual(findings.stream, findings.generate);
        assert.deepEqual(findings.agent, findings.generate);
        assert.deepEqual(findings['agent-stream'], findings.generate);
      }
    });
  });
}

for (const sdk of await sdkMajors()) {
  describe(`AI SDK ${sdk.major}: one guard for a whole server`, () => {
    serverCases({
      createGuard,
      // The app's own conversation ids, as providerOptions.seamguard.runId.
      threads: true,
      agentFor(guard, router) {
        // Built once, as a route handler's module does.
        const model = sdk.ai.wrapLanguageModel({ model: routedModel(sdk, router), middleware: guard.middleware });
        const tools = toolsByName(sdk.ai, SERVER.tools());
        return (conversation, { thread } = {}) =>
          runAgent(sdk, conversation.stream ? 'stream' : 'generate', {
            model,
            tools,
            system: SERVER.system,
            prompt: conversation.prompt,
            ...(thread === undefined ? {} : { providerOptions: { seamguard: { runId: thread } } }),
          });
      },
    });
  });
}
