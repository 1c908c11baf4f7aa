// A TypeScript consumer of `seamguard/langchain` alone, as the README's
// TypeScript table describes one: checked against @types/node 26 by
// types-node.test.mjs (frameworks-consumer.ts covers the entry in full).
import { createAgent } from 'langchain';
import { fakeModel } from '@langchain/core/testing';
import { createGuard, type Guard } from 'seamguard/langchain';

const guard: Guard = createGuard({ argumentsFrom: { port_for_device: ['fabric_inventory'] } });
const agent = createAgent({ model: fakeModel(), tools: [], middleware: [guard.middleware] });
export async function answer(): Promise<number> {
  const state = await agent.invoke({ messages: [{ role: 'user', content: 'Which port?' }] });
  return state.messages.length + guard.findings.length;
}
