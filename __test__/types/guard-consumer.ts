// A TypeScript consumer of the guard, compiled against the AI SDK's own
// types: ai 6 (tsconfig.ai-sdk.json) and ai 7 (tsconfig.ai-sdk7.json, which
// maps `ai` to the ai-v7 dev dependency).
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { readLookupResult, type ContextError } from 'seamguard';
import { createGuard, type EvidenceOptions, type Guard, type GuardFinding, type GuardOptions, type SeamguardSignalAttributes, type SeamguardSignalName } from 'seamguard/ai-sdk';

declare const model: Parameters<typeof wrapLanguageModel>[0]['model'];

const fabric_inventory = tool({
  description: 'Lists the fabric devices',
  inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
  execute: async () => ({ devices: [{ wwpn: '20:00:00:25:b5:aa:00:1f', host: 'host-a' }] }),
});
const port_for_device = tool({
  description: 'Finds the port a device is logged in to',
  inputSchema: jsonSchema<{ wwpn: string }>({ type: 'object', properties: { wwpn: { type: 'string' } }, required: ['wwpn'] }),
  execute: async ({ wwpn }) => ({ wwpn, matches: [] as string[] }),
});

const seen: ContextError[] = [];
const guard: Guard = createGuard({
  argumentsFrom: { port_for_device: ['fabric_inventory'] },
  readResult: { port_for_device: (output) => readLookupResult((output as { matches: unknown }).matches, false) },
  onFinding: (finding) => seen.push(finding),
  onError: (error) => console.error(error),
  posture: 'dev',
});

export async function triage(prompt: string): Promise<string> {
  const { text } = await generateText({
    model: wrapLanguageModel({ model, middleware: guard.middleware }),
    tools: { fabric_inventory, port_for_device },
    stopWhen: stepCountIs(8),
    prompt,
  });
  const findings: readonly ContextError[] = guard.findings;
  for (const row of guard.ledger.report()) console.log(row.check, row.checked, row.findings);
  guard.ledger.assertAlive();
  guard.newRun();
  return `${text} (${findings.length})`;
}

const options: GuardOptions = { argumentsFrom: {} };
void options;
// @ts-expect-error a tool's grounds are a list of tool names
createGuard({ argumentsFrom: { port_for_device: 'fabric_inventory' } });
// @ts-expect-error posture is 'dev' or 'prod'
createGuard({ posture: 'staging' });
// @ts-expect-error findings are read, not written
guard.findings = [];

// One guard for a whole server: findings routed to their conversation.
const byRun = new Map<string, ContextError[]>();
export const server: Guard = createGuard({
  argumentsFrom: { port_for_device: ['fabric_inventory'] },
  maxRuns: 5000,
  onFinding: async (finding, run) => {
    const { id, toolCallId }: { id: string; toolCallId: string | undefined } = run;
    byRun.set(id, [...(byRun.get(id) ?? []), finding]);
    void toolCallId;
  },
  onError: async (error) => {
    console.error(error);
  },
});
for (const id of server.runIds()) {
  const run = server.run(id);
  if (run !== undefined) for (const row of run.ledger.report()) console.log(run.id, row.check, row.reasons?.join('; '));
}
// @ts-expect-error maxRuns is a number
createGuard({ maxRuns: '10' });

// stopOn, guard.stopWhen beside the SDK's own stop conditions, and the
// findings each step carries in providerMetadata.seamguard.
import { ToolLoopAgent } from 'ai';
import type { ActedFindings } from 'seamguard/ai-sdk';
const stopping = createGuard({ argumentsFrom: { port_for_device: ['fabric_inventory'] }, stopOn: ['unsupported-argument'] });
createGuard({ stopOn: true });
// @ts-expect-error stopOn names kinds of finding
createGuard({ stopOn: ['empty-lookups'] });
export async function stopped(prompt: string): Promise<boolean> {
  const { steps } = await generateText({
    model: wrapLanguageModel({ model, middleware: stopping.middleware }),
    tools: { fabric_inventory, port_for_device },
    stopWhen: [stepCountIs(8), stopping.stopWhen],
    prompt,
  });
  new ToolLoopAgent({ model, tools: { fabric_inventory, port_for_device }, stopWhen: [stepCountIs(8), stopping.stopWhen] });
  const acted = steps.at(-1)?.providerMetadata?.seamguard as ActedFindings | undefined;
  return acted?.stop === true && acted.findings.every((finding) => typeof finding.message === 'string');
}
// A finding names the tool call it is about; the signals the guard records
// in a framework's traces carry typed attributes.
const callIds: (string | undefined)[] = server.findings.map((finding: GuardFinding) => finding.toolCallId);
void callIds;
export function onSignal(name: SeamguardSignalName, data: SeamguardSignalAttributes): string {
  const where = `${data['seamguard.run_id'] ?? '?'}#${data['seamguard.model_call'] ?? '?'}`;
  return `${name} ${data['seamguard.signal']} ${data['seamguard.kind'] ?? ''} ${data['gen_ai.tool.call.id'] ?? ''} ${(data['seamguard.tools'] ?? []).join(',')} ${where}`;
}
// @ts-expect-error the signal names are a closed set
onSignal('seamguard.other', { 'seamguard.signal': 'finding' });

// The claim seam's options, as a strict consumer writes them.
const evidence: EvidenceOptions = { posture: 'guard', exempt: ['ACME-1', /^rack-\d+$/], shapes: [{ name: 'ticket', match: /INC-\d+/ }], minDigits: 3 };
export const claimGuard: Guard = createGuard({ evidence, noticePriorTurnEvidence: true, stopOn: ['unsupported-claim', 'prior-turn-evidence'] });
export const claimDefaults: Guard = createGuard({ evidence: true });
// @ts-expect-error a guard never refuses a run: 'rails' is not a posture
createGuard({ evidence: { posture: 'rails' } });
// @ts-expect-error noticePriorTurnEvidence is a boolean
createGuard({ evidence: true, noticePriorTurnEvidence: 'yes' });
export const revisionSignal: SeamguardSignalName = 'seamguard.revision';
