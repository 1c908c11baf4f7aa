// A TypeScript consumer of `seamguard/openai-agents` alone, as the README's
// TypeScript table describes one: checked against @types/node 26 by
// types-node.test.mjs (frameworks-consumer.ts covers the entry in full).
import { Agent, run, type Model } from '@openai/agents';
import { ScriptedModel } from '@openai/agents/testing';
import { createGuard, type Guard } from 'seamguard/openai-agents';

const guard: Guard = createGuard({ argumentsFrom: { port_for_device: ['fabric_inventory'] } });
const model: Model = guard.model(new ScriptedModel([]));
export async function answer(): Promise<unknown> {
  const result = await run(new Agent({ name: 'triage', model }), 'Which port?');
  return result.finalOutput;
}
