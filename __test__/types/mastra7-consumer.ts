// Mastra with an ai 7 model (tsconfig.mastra7.json maps `ai` to ai 7).
// Mastra's own copy of the AI SDK 7 model types lacks the finish reason
// 'interrupted' that ai 7's models may return, so an ai 7 model is refused
// as an agent's `model` until it is cast to Mastra's `MastraModelConfig`,
// as docs/frameworks.md says. When Mastra's types catch up, the
// expect-error below fails and the page's cast can go.
import { Agent } from '@mastra/core/agent';
import type { MastraModelConfig } from '@mastra/core/llm';
import { MockLanguageModelV4 } from 'ai/test';
import { createGuard } from 'seamguard/mastra';

const model = new MockLanguageModelV4();
const guard = createGuard();
// @ts-expect-error Mastra's LanguageModelV4 has no 'interrupted' finish reason
void new Agent({ id: 'refused', name: 'refused', instructions: 'Answer.', model, inputProcessors: [guard], outputProcessors: [guard] });
void new Agent({ id: 'cast', name: 'cast', instructions: 'Answer.', model: model as MastraModelConfig, inputProcessors: [guard], outputProcessors: [guard] });

// The claim seam's revision spends the agent's processor retries: the guard
// is told the same budget.
export const revising = createGuard({ evidence: { posture: 'guard' }, maxProcessorRetries: 1 });
// @ts-expect-error the budget is a number
createGuard({ evidence: { posture: 'guard' }, maxProcessorRetries: '1' });
