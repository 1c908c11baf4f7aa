// The guard inside a Mastra agent's own loop (`@mastra/core`): the six field
// cases through `agent.generate` and `agent.stream`, with the AI SDK's mock
// model playing each case's script (Mastra runs AI SDK models: ai 6's
// MockLanguageModelV3 and ai 7's MockLanguageModelV4), the guard as the
// agent's input and output processor, and tools whose `execute` really runs.
//
// `@mastra/core` needs Node 22.13 or later: under Node 20 these tests are
// skipped, and say so.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/mastra';

import { routedModel, scriptedModel, sdkMajors } from '../support/agents.mjs';
import { RUNS, fieldCases, playsFor, sameInEveryMode } from '../support/field-cases.mjs';
import { SERVER, serverCases } from '../support/server-cases.mjs';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const skip = NODE_MAJOR < 22 ? `@mastra/core needs Node 22.13 or later; this is Node ${process.versions.node}` : false;

const mastra = skip
  ? undefined
  : { ...(await import('@mastra/core/agent')), ...(await import('@mastra/core/tools')), MockMemory: (await import('@mastra/core/memory')).MockMemory, z: (await import('zod')).z };
// ai 7 runs where Mastra does; both majors' models are tested.
const majors = skip ? [] : await sdkMajors();

/** The run's tools as Mastra tools. */
const toolsOf = (run) =>
  Object.fromEntries(
    run.tools().map(({ name, description, properties, execute }) => [
      name,
      mastra.createTool({
        id: name,
        description,
        inputSchema: mastra.z.object(Object.fromEntries(Object.keys(properties).map((key) => [key, mastra.z.string()]))).strict(),
        execute: (input) => execute(input),
      }),
    ]),
  );

/** The app's window: from step `from` on, the calls to `tool` and their results leave the prompt. */
const windowProcessor = ({ tool: dropped, from }) => ({
  id: 'window',
  processLLMRequest({ prompt, stepNumber }) {
    if (stepNumber < from) return undefined;
    return { prompt: prompt.filter((message) => !(Array.isArray(message.content) && message.content.some((part) => part.toolName === dropped))) };
  },
});

/** Plays a run with the AI SDK major `sdk` in `mode` ('generate' or 'stream'); `guard` may be undefined. */
async function playIn(sdk, mode, run, guard) {
  const { model, prompts } = scriptedModel(sdk, run.script);
  const agent = new mastra.Agent({
    id: 'triage',
    name: 'triage',
    instructions: run.system ?? '',
    model,
    tools: toolsOf(run),
    inputProcessors: [...(run.window ? [windowProcessor(run.window)] : []), ...(guard ? [guard] : [])],
    outputProcessors: guard ? [guard] : [],
  });
  let text;
  if (mode === 'generate') {
    const result = await agent.generate(run.prompt, { maxSteps: 8 });
    text = result.steps.at(-1).text;
  } else {
    const result = await agent.stream(run.prompt, { maxSteps: 8 });
    for await (const delta of result.textStream) void delta;
    text = (await result.steps).at(-1).text;
  }
  return { text, prompts: prompts.map((prompt) => JSON.stringify(prompt)) };
}

const MODES = ['generate', 'stream'];
const playsOf = (sdk) => playsFor(MODES, createGuard, (mode, run, guard) => playIn(sdk, mode, run, guard));

for (const sdk of skip ? [{ major: '6 and 7' }] : majors) {
  describe(`Mastra, with an AI SDK ${sdk.major} model: the guard's field cases`, { skip }, () => {
    if (skip) return;
    const plays = playsOf(sdk);
    for (const mode of MODES) {
      describe(mode, () => fieldCases({ play: plays[mode], bare: async (run) => (await playIn(sdk, mode, run)).text }));
    }
    sameInEveryMode(plays);
  });
}

describe('Mastra: the stream seam', { skip }, () => {
  const LEAK = 'Sure. <tool_call>{"name":"port_for_device","arguments":{"wwpn":"20:00:00:25:b5:aa:00:1f"}}</tool_call> Done.';
  // A call to a tool the agent does not offer is left alone.
  const NOT_OFFERED = ' [weather(city="Paris")]';

  for (const mode of MODES) {
    it(`${mode}: a leaked call to an offered tool is stripped from the streamed text and the answer`, async () => {
      // Heal off: this case is about the strip (heal-mastra.test.mjs heals).
      const guard = createGuard({ argumentsFrom: { port_for_device: ['fabric_inventory'] }, heal: false });
      // The scripted model streams its text seven characters a delta.
      const { model } = scriptedModel(majors[0], [{ text: LEAK + NOT_OFFERED }]);
      const agent = new mastra.Agent({
        id: 'triage',
        name: 'triage',
        instructions: '',
        model,
        tools: toolsOf(RUNS.triage),
        inputProcessors: [guard],
        outputProcessors: [guard],
      });
      if (mode === 'generate') {
        assert.equal((await agent.generate('Which port?')).text, `Sure.  Done.${NOT_OFFERED}`);
        return;
      }
      const result = await agent.stream('Which port?');
      const streamed = [];
      for await (const delta of result.textStream) streamed.push(delta);
      assert.ok(streamed.length > 1, 'the answer came in more than one delta');
      assert.equal(streamed.join(''), `Sure.  Done.${NOT_OFFERED}`);
      assert.equal(await result.text, `Sure.  Done.${NOT_OFFERED}`);
    });
  }
});

describe('Mastra: options', () => {
  it('a bad option is a TypeError naming it', () => {
    assert.throws(() => createGuard({ argumentsFrom: [] }), { name: 'TypeError', message: /options\.argumentsFrom must be an object/ });
    assert.throws(() => createGuard({ posture: 'staging' }), { name: 'TypeError', message: /options\.posture must be 'dev' or 'prod'/ });
    assert.throws(() => createGuard({ readResult: { port_for_device: 'rows' } }), { name: 'TypeError', message: /options\.readResult\["port_for_device"\] must be a function/ });
  });
});

for (const sdk of skip ? [{ major: '6 and 7' }] : majors) {
  describe(`Mastra, with an AI SDK ${sdk.major} model: one guard for a whole server`, { skip }, () => {
    if (skip) return;
    serverCases({
      createGuard,
      // Memory threads, with Mastra's own in-memory store.
      threads: true,
      agentFor(guard, router) {
        // Built once, as an agent registered with new Mastra(...) is.
        const agent = new mastra.Agent({
          id: 'fabric',
          name: 'fabric',
          instructions: SERVER.system,
          model: routedModel(sdk, router),
          tools: toolsOf({ tools: SERVER.tools }),
          inputProcessors: [guard],
          outputProcessors: [guard],
          memory: new mastra.MockMemory(),
        });
        return async (conversation, { thread } = {}) => {
          const options = { maxSteps: 8, ...(thread === undefined ? {} : { memory: { thread, resource: 'user-1' } }) };
          if (!conversation.stream) return agent.generate(conversation.prompt, options);
          const result = await agent.stream(conversation.prompt, options);
          for await (const delta of result.textStream) void delta;
          await result.steps;
          return undefined;
        };
      },
    });
  });
}
