// A TypeScript consumer of `seamguard/langchain` and `seamguard/openai-agents`,
// compiled against each framework's own types (tsconfig.frameworks.json;
// `seamguard/mastra` has mastra-consumer.ts).
import { readLookupResult, type ContextError } from 'seamguard';

// LangChain.js
import { createAgent, tool as langchainTool } from 'langchain';
import { fakeModel } from '@langchain/core/testing';
import { createGuard as createLangChainGuard, type Guard as LangChainGuard, type GuardOptions } from 'seamguard/langchain';

const options: GuardOptions = {
  argumentsFrom: { port_for_device: ['fabric_inventory'] },
  readResult: { port_for_device: (output) => readLookupResult((output as { matches: unknown }).matches, false) },
  onFinding: (finding: ContextError) => console.log(finding.kind),
  onError: (error) => console.error(error),
  posture: 'dev',
};
const lookup = langchainTool(async ({ wwpn }: { wwpn: string }) => wwpn, {
  name: 'port_for_device',
  description: 'Finds the port a device is logged in to',
  schema: { type: 'object', properties: { wwpn: { type: 'string' } }, required: ['wwpn'] },
});
const langchainGuard: LangChainGuard = createLangChainGuard(options);
const agent = createAgent({ model: fakeModel(), tools: [lookup], middleware: [langchainGuard.middleware] });
createAgent({ model: fakeModel(), tools: [lookup], middleware: [langchainGuard] });
export async function streamed(): Promise<string> {
  let text = '';
  const stream = await agent.stream({ messages: [{ role: 'user', content: 'Which port?' }] }, { streamMode: 'messages' });
  for await (const [message] of langchainGuard.messages(stream)) text += message.text;
  const findings: readonly ContextError[] = langchainGuard.findings;
  langchainGuard.ledger.assertAlive();
  langchainGuard.newRun();
  return `${text} (${findings.length})`;
}
// @ts-expect-error a tool's grounds are a list of tool names
createLangChainGuard({ argumentsFrom: { port_for_device: 'fabric_inventory' } });
// @ts-expect-error findings are read, not written
langchainGuard.findings = [];
createLangChainGuard({ heal: false, strip: true });
// @ts-expect-error heal is on or off
createLangChainGuard({ heal: 'always' });
// stopOn, where the run jumps, and the findings in the agent's state.
import type { SeamguardState } from 'seamguard/langchain';
const stoppingLangChain = createLangChainGuard({ ...options, stopOn: ['unsupported-argument'], jumpTo: 'model' });
const stoppingAgent = createAgent({ model: fakeModel(), tools: [lookup], middleware: [stoppingLangChain.middleware] });
export async function inState(): Promise<number> {
  const state = await stoppingAgent.invoke({ messages: [{ role: 'user', content: 'Which port?' }] });
  return (state as unknown as SeamguardState).seamguardFindings.filter((finding) => finding.trips).length;
}
// @ts-expect-error jumpTo is 'end' or 'model'
createLangChainGuard({ jumpTo: 'tools' });

// The OpenAI Agents SDK
import { Agent, Runner, run, tool as agentsTool, type Model, type ModelProvider } from '@openai/agents';
import { ScriptedModel } from '@openai/agents/testing';
import { createGuard as createAgentsGuard, type Guard as AgentsGuard } from 'seamguard/openai-agents';

const agentsGuard: AgentsGuard = createAgentsGuard(options);
const model: Model = agentsGuard.model(new ScriptedModel([]));
const triage = new Agent({
  name: 'triage',
  model,
  tools: [
    agentsTool({
      name: 'port_for_device',
      description: 'Finds the port a device is logged in to',
      parameters: { type: 'object', properties: { wwpn: { type: 'string' } }, required: ['wwpn'], additionalProperties: false },
      strict: true,
      execute: async () => [],
    }),
  ],
});
declare const provider: ModelProvider;
new Runner({ modelProvider: agentsGuard.modelProvider(provider) });
export async function ran(): Promise<unknown> {
  const result = await run(triage, 'Which port?');
  agentsGuard.ledger.report();
  return result.finalOutput;
}
// @ts-expect-error a model name is not a Model: use modelProvider
agentsGuard.model('gpt-5');
// The output guardrail, on an agent or on a runner.
import { OutputGuardrailTripwireTriggered } from '@openai/agents';
import type { GuardrailInfo } from 'seamguard/openai-agents';
const guarded = new Agent({ name: 'triage', model, outputGuardrails: [agentsGuard.outputGuardrail] });
new Runner({ outputGuardrails: [agentsGuard.outputGuardrail] });
export async function tripped(): Promise<number> {
  try {
    await run(guarded, 'Which port?');
    return 0;
  } catch (error) {
    if (!(error instanceof OutputGuardrailTripwireTriggered)) throw error;
    return (error.result.output.outputInfo as GuardrailInfo).findings.length;
  }
}
