// npm run demo, part one: an AI SDK agent guarded by seamguard.
//
// A triage agent with real tools and a scripted model (the AI SDK's own mock,
// so the demo needs no API key). One `argumentsFrom` declaration per tool arms
// every seam, and each fires once in this run:
// - write: the reverse lookup has a broken filter and answers [] for a WWPN
//   the inventory really listed (empty-lookup);
// - choice: the model takes a machine name out of its own earlier prose
//   (unsupported-argument, self-referenced);
// - compose: the app's sliding window drops the inventory while the tools
//   that depend on it are still on offer (dangling-reference).
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createGuard } from 'seamguard/ai-sdk';
import { wrap } from './wrap.mjs';

// The tools. port_for_device filters on a column that does not exist, so it
// matches nothing, for every device, always.
const INVENTORY = [
  { wwpn: '20:00:00:25:b5:aa:00:1f', host: 'host-a', rack: 'R12' },
  { wwpn: '20:00:00:25:b5:aa:00:2c', host: 'host-b', rack: 'R14' },
];
const tools = {
  fabric_inventory: tool({
    description: 'Lists the devices logged in to the fabric',
    inputSchema: jsonSchema({ type: 'object', properties: {} }),
    execute: async () => INVENTORY,
  }),
  port_for_device: tool({
    description: 'Finds the switch port a device (by WWPN) is logged in to',
    inputSchema: jsonSchema({ type: 'object', properties: { wwpn: { type: 'string' } }, required: ['wwpn'] }),
    execute: async ({ wwpn }) => INVENTORY.filter((device) => device.port_wwpn === wwpn),
  }),
  backup_status: tool({
    description: 'Backup status of a machine',
    inputSchema: jsonSchema({ type: 'object', properties: { machine: { type: 'string' } }, required: ['machine'] }),
    execute: async ({ machine }) => `no backup record for ${machine}`,
  }),
};

// The model, scripted: what a real model did in the field.
const script = [
  { text: 'Let me list the fabric first.', calls: [['fabric_inventory', {}]] },
  { text: 'host-a is 20:00:00:25:b5:aa:00:1f; its nightly job is bkp-4417-ganymede-tier2.', calls: [['port_for_device', { wwpn: '20:00:00:25:b5:aa:00:1f' }]] },
  { calls: [['backup_status', { machine: '4417-ganymede' }]] },
  { text: 'host-a is not logged in to any port, and 4417-ganymede has no backups.' },
];
let step = 0;
const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };
const model = new MockLanguageModelV3({
  doGenerate: async () => {
    const { text, calls = [] } = script[step];
    const content = [
      ...(text ? [{ type: 'text', text }] : []),
      ...calls.map(([toolName, input], n) => ({ type: 'tool-call', toolCallId: `call-${step}-${n}`, toolName, input: JSON.stringify(input) })),
    ];
    step += 1;
    const reason = calls.length > 0 ? 'tool-calls' : 'stop';
    return { content, finishReason: { unified: reason, raw: reason }, usage, warnings: [] };
  },
});

// The guard: where each tool's arguments come from. That is all it needs.
const guard = createGuard({
  argumentsFrom: {
    port_for_device: ['fabric_inventory'],
    backup_status: ['fabric_inventory'],
  },
  onFinding: (finding) => console.log(`  finding at step ${finding.epoch}: ${finding.kind}\n${wrap(finding.message)}\n`),
});

console.log('A guarded AI SDK agent (generateText, a scripted mock model, real tools):\n');
const { text } = await generateText({
  model: wrapLanguageModel({ model, middleware: guard.middleware }),
  tools,
  stopWhen: stepCountIs(8),
  system: 'You triage SAN fabrics.',
  prompt: 'Which switch port is host-a on, and is it backed up?',
  // The app's window: the prompt and the last four messages.
  prepareStep: ({ messages }) => ({ messages: [messages[0], ...messages.slice(1).slice(-4)] }),
});

console.log(`  the answer, unchanged by the guard:\n${wrap(text)}\n`);
console.log('  the ledger: check               checked  findings  n/a  unreachable');
for (const row of guard.ledger.report()) {
  const cells = [row.checked, row.findings, row.notApplicable, row.unreachable].map((n) => String(n).padStart(5));
  console.log(`              ${row.check.padEnd(22)}${cells[0]}  ${cells[1]}    ${cells[2]}  ${cells[3]}`);
}
guard.ledger.assertAlive();

