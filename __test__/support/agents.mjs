// Scripted agents for the guard's tests: each AI SDK major this Node can run,
// a mock model that plays a script step by step (generating or streaming the
// same content), and real tools whose `execute` functions answer from data.

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/**
 * The AI SDK majors to test under this Node: 6 everywhere, 7 on Node 22 and
 * later (the `ai-v7` dev dependency is `ai@7` under another name).
 */
export async function sdkMajors() {
  const majors = [{ major: 6, ai: await import('ai'), Mock: (await import('ai/test')).MockLanguageModelV3 }];
  if (NODE_MAJOR >= 22) {
    majors.push({ major: 7, ai: await import('ai-v7'), Mock: (await import('ai-v7/test')).MockLanguageModelV4 });
  }
  return majors;
}

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** One step's content parts: its text, then its tool calls (input as JSON text). */
function contentOf(step, index) {
  const content = [];
  if (step.text !== undefined) content.push({ type: 'text', text: step.text });
  (step.calls ?? []).forEach((call, n) => {
    content.push({ type: 'tool-call', toolCallId: call.toolCallId ?? `call-${index}-${n}`, toolName: call.toolName, input: JSON.stringify(call.input) });
  });
  return content;
}

const finishOf = (content) => {
  const unified = content.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop';
  return { unified, raw: unified };
};

/** The same content as stream parts, text in small deltas. */
function streamPartsOf(content) {
  const parts = [{ type: 'stream-start', warnings: [] }];
  for (const part of content) {
    if (part.type === 'text') {
      parts.push({ type: 'text-start', id: 't' });
      for (let i = 0; i < part.text.length; i += 7) parts.push({ type: 'text-delta', id: 't', delta: part.text.slice(i, i + 7) });
      parts.push({ type: 'text-end', id: 't' });
    } else {
      parts.push({ type: 'tool-input-start', id: part.toolCallId, toolName: part.toolName });
      parts.push({ type: 'tool-input-delta', id: part.toolCallId, delta: part.input });
      parts.push({ type: 'tool-input-end', id: part.toolCallId });
      parts.push(part);
    }
  }
  parts.push({ type: 'finish', usage: USAGE, finishReason: finishOf(content) });
  return parts;
}

/**
 * A mock model of the given major that answers its n-th call with
 * `script[n]` (`{ text?, calls?: [{ toolName, input }] }`), and records the
 * prompt of each call in `prompts`.
 */
export function scriptedModel({ ai, Mock }, script) {
  const prompts = [];
  let n = 0;
  const next = (options) => {
    prompts.push(options.prompt);
    const index = n++;
    const step = script[index] ?? { text: '(the script has ended)' };
    return { index, content: contentOf(step, index) };
  };
  const model = new Mock({
    doGenerate: async (options) => {
      const { content } = next(options);
      return { content, finishReason: finishOf(content), usage: USAGE, warnings: [] };
    },
    doStream: async (options) => {
      const { content } = next(options);
      return { stream: ai.simulateReadableStream({ chunks: streamPartsOf(content), initialDelayInMs: null, chunkDelayInMs: null }) };
    },
  });
  return { model, prompts };
}

/**
 * A mock model of the given major that serves many conversations: each
 * call is answered with `router.answer(<the prompt as JSON>)` (see
 * server-cases.mjs), generating or streaming alike.
 */
export function routedModel({ ai, Mock }, router) {
  const next = (options) => contentOf(router.answer(JSON.stringify(options.prompt)), 0);
  return new Mock({
    doGenerate: async (options) => {
      const content = next(options);
      return { content, finishReason: finishOf(content), usage: USAGE, warnings: [] };
    },
    doStream: async (options) => {
      const content = next(options);
      return { stream: ai.simulateReadableStream({ chunks: streamPartsOf(content), initialDelayInMs: null, chunkDelayInMs: 1 }) };
    },
  });
}

/** A field case's tools (`{ name, description, properties, execute }`) as AI SDK tools, by name. */
export function toolsByName(ai, tools) {
  return Object.fromEntries(tools.map(({ name, description, properties, execute }) => [name, toolOf(ai, { description, properties, execute })]));
}

/** A tool with a JSON Schema input and a real `execute`. */
export function toolOf(ai, { description, properties = {}, execute }) {
  return ai.tool({
    description,
    inputSchema: ai.jsonSchema({ type: 'object', properties, additionalProperties: false }),
    execute,
  });
}

/**
 * Runs `script` through one of the SDK's loops and returns the answer text.
 * `mode` is 'generate' (generateText), 'stream' (streamText), 'agent'
 * (ToolLoopAgent.generate) or 'agent-stream' (ToolLoopAgent.stream).
 */
export async function runAgent(sdk, mode, { model, tools, prompt, system, prepareStep, providerOptions, steps = 8 }) {
  const { ai } = sdk;
  const settings = { model, tools, stopWhen: ai.stepCountIs(steps), ...(prepareStep ? { prepareStep } : {}), ...(providerOptions ? { providerOptions } : {}) };
  if (mode === 'generate') return (await ai.generateText({ ...settings, system, prompt })).text;
  if (mode === 'stream') {
    const result = ai.streamText({ ...settings, system, prompt });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    return text;
  }
  const agent = new ai.ToolLoopAgent({ ...settings, instructions: system });
  if (mode === 'agent') return (await agent.generate({ prompt })).text;
  const result = await agent.stream({ prompt });
  let text = '';
  for await (const delta of result.textStream) text += delta;
  return text;
}

export const MODES = ['generate', 'stream', 'agent', 'agent-stream'];
