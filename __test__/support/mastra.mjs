// The claim cases (claim-cases.mjs) in Mastra, for the claim seam's field
// cases and its telemetry: an agent with the guard as its input and output
// processor, a memory and a processor retry budget, tools that really run,
// optionally registered with a Mastra whose observability exports to a
// TestExporter; and the readers of what a turn did (its retries, its event
// spans). `@mastra/core` needs Node 22.13 or later, so its modules are
// loaded on demand (`mastraModules`) and handed in.
import { CLAIM_TOOLS, plainAiSdkPrompt } from './claim-cases.mjs';

/** The Mastra modules these tests use, as one object. */
export async function mastraModules() {
  return {
    ...(await import('@mastra/core')),
    ...(await import('@mastra/core/agent')),
    ...(await import('@mastra/core/tools')),
    ...(await import('@mastra/observability')),
    MockMemory: (await import('@mastra/core/memory')).MockMemory,
    z: (await import('zod')).z,
  };
}

/**
 * `agent` registered with a Mastra whose observability exports to a
 * TestExporter (an exporter that keeps what it is handed), as Mastra's docs
 * set observability up: `{ agent, exporter }`, the agent as the Mastra
 * serves it.
 */
export function observe(mastra, agent) {
  const exporter = new mastra.TestExporter();
  const app = new mastra.Mastra({
    agents: { [agent.id]: agent },
    observability: new mastra.Observability({ configs: { default: { serviceName: 'seamguard-test', exporters: [exporter] } } }),
    logger: false,
  });
  return { agent: app.getAgent(agent.id), exporter };
}

/** The seamguard event spans the exporter got: `{ name, type, hook, traceId, data }`, `hook` the span they sit under. */
export function signalsOf(exporter) {
  const spans = exporter.getAllSpans();
  return spans
    .filter((span) => span.name.startsWith('seamguard.'))
    .map((span) => ({ name: span.name, type: span.type, hook: spans.find((other) => other.id === span.parentSpanId)?.name, traceId: span.traceId, data: span.metadata }));
}

const claimTools = (mastra) =>
  Object.fromEntries(
    CLAIM_TOOLS.map(({ name, description, properties, execute }) => [
      name,
      mastra.createTool({ id: name, description, inputSchema: mastra.z.object(Object.fromEntries(Object.keys(properties).map((key) => [key, mastra.z.string()]))), execute: (input) => execute(input) }),
    ]),
  );

/** An agent on `model` guarded by `guard`, with a memory; `maxProcessorRetries` (1 unless given) lets the guard's one revision run. */
export const claimAgent = (mastra, model, guard, maxProcessorRetries = 1) =>
  new mastra.Agent({ id: 'assistant', name: 'assistant', instructions: '', model, tools: claimTools(mastra), inputProcessors: [guard], outputProcessors: [guard], memory: new mastra.MockMemory(), maxProcessorRetries });

/** One turn of `thread` in `mode` ('generate' or 'stream'): the final step's text, and the text streamed. */
export async function ask(agent, mode, question, thread) {
  const options = { maxSteps: 6, memory: { thread, resource: 'user-1' } };
  if (mode === 'generate') {
    const result = await agent.generate(question, options);
    return { text: result.text, result };
  }
  const result = await agent.stream(question, options);
  let streamed = '';
  for await (const delta of result.textStream) streamed += delta;
  return { text: await result.text, streamed, result };
}

/**
 * How one turn went, by the prompts the model got: those before the guard's
 * one retry, and those after it (they carry Mastra's retry feedback, the
 * correction in it). Mastra 1.63 retries the whole turn (the tool is asked
 * again), later versions only the step that answered; either way the guard
 * asks one retry, so no prompt carries the feedback twice.
 */
export function retriesOf(prompts) {
  const feedback = (prompt) => plainAiSdkPrompt(prompt).filter((message) => message.text.includes('[Processor Feedback]')).length;
  const after = prompts.filter((prompt) => feedback(prompt) > 0);
  return {
    before: prompts.length - after.length,
    after: after.length,
    once: prompts.every((prompt) => feedback(prompt) <= 1),
    corrected: after.every((prompt) => plainAiSdkPrompt(prompt).some((message) => message.text.includes('[evidence check'))),
  };
}
