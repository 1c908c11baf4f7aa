// The scaffolding middleware's defaults and its heal, through the AI SDK's
// own loops (generateText, streamText, ToolLoopAgent), under AI SDK 6 and,
// on Node 22 and later, 7: the filter reads the tools each call offers, so
// a leaked call is stripped in markup no preset names; with `heal: true` it
// becomes a real tool call the SDK runs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { scaffoldingMiddleware } from 'seamguard/ai-sdk';

import { MODES, runAgent, scriptedModel, sdkMajors, toolOf } from '../support/agents.mjs';

const HERMES = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
/** A wrapper no preset names: a tag with the tool in an attribute. */
const UNNAMED = '<call_tool tool="get_weather">{"city": "Paris"}</call_tool>';

function weatherTools(ai, seen) {
  return {
    get_weather: toolOf(ai, {
      description: 'The forecast for a city',
      properties: { city: { type: 'string' } },
      execute: async ({ city }) => {
        seen.push(city);
        return { city, forecast: 'sunny' };
      },
    }),
  };
}

function wrapped(sdk, script, options) {
  const { model, prompts } = scriptedModel(sdk, script);
  return { model: sdk.ai.wrapLanguageModel({ model, middleware: scaffoldingMiddleware(options) }), prompts };
}

for (const sdk of await sdkMajors()) {
  describe(`AI SDK ${sdk.major}`, () => {
    for (const mode of MODES) {
      it(`${mode}: strips a leaked call to an offered tool by default, in markup no preset names`, async () => {
        const seen = [];
        const { model, prompts } = wrapped(sdk, [{ text: `Checking. ${UNNAMED}` }]);
        const text = await runAgent(sdk, mode, { model, tools: weatherTools(sdk.ai, seen), prompt: 'Weather in Paris?' });
        assert.equal(text, 'Checking. ');
        assert.deepEqual(seen, []);
        assert.equal(prompts.length, 1);
      });

      it(`${mode}: callbacks that throw or reject never reach the run: they go to onError`, async () => {
        const seen = [];
        const errors = [];
        const { model } = wrapped(sdk, [{ text: `Let me look. ${HERMES}` }, { text: 'Sunny in Paris.' }], {
          heal: true,
          onHeal: () => { throw new Error('heal sink down'); },
          onStrip: async () => { throw new Error('strip sink down'); },
          onError: (error) => errors.push(error.message),
        });
        const text = await runAgent(sdk, mode, { model, tools: weatherTools(sdk.ai, seen), prompt: 'Weather in Paris?' });
        await new Promise((resolve) => setTimeout(resolve, 10));
        assert.deepEqual(seen, ['Paris']);
        assert.match(text, /Sunny in Paris\.$/);
        assert.deepEqual([...new Set(errors)].sort(), ['heal sink down', 'strip sink down']);
      });

      it(`${mode}: heals a leaked call into a real one, which the SDK runs`, async () => {
        const seen = [];
        const healed = [];
        const { model, prompts } = wrapped(sdk, [{ text: `Let me look. ${HERMES}` }, { text: 'Sunny in Paris.' }], {
          heal: true,
          onHeal: (event) => healed.push(event),
        });
        const text = await runAgent(sdk, mode, { model, tools: weatherTools(sdk.ai, seen), prompt: 'Weather in Paris?' });
        assert.deepEqual(seen, ['Paris']);
        assert.equal(prompts.length, 2);
        assert.match(text, /Sunny in Paris\.$/);
        assert.doesNotMatch(text, /tool_call/);
        assert.equal(healed.length, 1);
        assert.deepEqual(healed[0].calls.map(({ toolName, input }) => ({ toolName, input })), [
          { toolName: 'get_weather', input: { city: 'Paris' } },
        ]);
        assert.match(healed[0].calls[0].toolCallId, /^healed_[0-9a-f]{32}$/);
        assert.deepEqual(healed[0].stripped, [HERMES]);
        // The second call's prompt holds the healed call and its result.
        const second = JSON.stringify(prompts[1]);
        assert.match(second, /"toolName":"get_weather"/);
        assert.match(second, /sunny/);
      });

      it(`${mode}: never heals a call to a tool not on offer (one the step withdrew): it is stripped, and never runs`, async () => {
        const seen = [];
        const deleted = [];
        const healed = [];
        const strips = [];
        const tools = {
          ...weatherTools(sdk.ai, seen),
          delete_file: toolOf(sdk.ai, {
            description: 'Deletes a file',
            properties: { path: { type: 'string' } },
            execute: async ({ path }) => {
              deleted.push(path);
              return { deleted: path };
            },
          }),
        };
        const leak = '<tool_call>\n{"name": "delete_file", "arguments": {"path": "/etc/hosts"}}\n</tool_call>';
        const { model, prompts } = wrapped(sdk, [{ text: `On it. ${leak}` }, { text: 'Done.' }], {
          heal: true,
          onHeal: (event) => healed.push(event),
          onStrip: (event) => strips.push(event),
        });
        const text = await runAgent(sdk, mode, {
          model, tools, prompt: 'Tidy up.', prepareStep: () => ({ activeTools: ['get_weather'] }),
        });
        assert.equal(text, 'On it. ');
        assert.deepEqual([deleted, seen, healed], [[], [], []]);
        assert.equal(prompts.length, 1);
        assert.deepEqual(strips.map(({ span, calls }) => ({ span, calls })), [
          { span: leak, calls: [{ name: 'delete_file', offered: false, input: { path: '/etc/hosts' } }] },
        ]);
      });
    }

    it('heals a call given in pythonic form inside special tokens, with its arguments read', async () => {
      const seen = [];
      const { model } = wrapped(
        sdk,
        [{ text: '<|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|>' }, { text: 'Done.' }],
        { heal: true },
      );
      const text = await runAgent(sdk, 'stream', { model, tools: weatherTools(sdk.ai, seen), prompt: 'Weather?' });
      assert.deepEqual(seen, ['Paris']);
      assert.equal(text, 'Done.');
    });

    it('does not heal a round that made a real tool call: the leak is only stripped', async () => {
      for (const mode of ['generate', 'stream']) {
        const seen = [];
        const { model, prompts } = wrapped(
          sdk,
          [{ text: `One. ${HERMES}`, calls: [{ toolName: 'get_weather', input: { city: 'Rome' } }] }, { text: 'Done.' }],
          { heal: true },
        );
        await runAgent(sdk, mode, { model, tools: weatherTools(sdk.ai, seen), prompt: 'Weather?' });
        assert.deepEqual(seen, ['Rome'], mode);
        assert.equal(prompts.length, 2, mode);
      }
    });

    it('heals only tools the call may use: under toolChoice none the leak is stripped, not run', async () => {
      for (const mode of ['generate', 'stream']) {
        const seen = [];
        const { model } = wrapped(sdk, [{ text: `Sure. ${HERMES}` }], { heal: true });
        const settings = { model, tools: weatherTools(sdk.ai, seen), toolChoice: 'none', prompt: 'Weather?' };
        const text =
          mode === 'generate'
            ? (await sdk.ai.generateText(settings)).text
            : await (async () => {
                let all = '';
                for await (const delta of sdk.ai.streamText(settings).textStream) all += delta;
                return all;
              })();
        assert.equal(text, 'Sure. ', mode);
        assert.deepEqual(seen, [], mode);
      }
    });

    it('heals first; recover asks again only when nothing could be healed', async () => {
      for (const mode of ['generate', 'stream']) {
        // Arguments that are not JSON: the call is stripped (its rawInput
        // kept), nothing can be healed, so the round deflected.
        const broken = '<tool_call>{"name": "get_weather", "arguments": "city=Paris"}</tool_call>';
        const recovered = [];
        const { model, prompts } = wrapped(sdk, [{ text: broken }, { text: 'Paris is sunny.' }], {
          heal: true,
          recover: true,
          onRecover: (event) => recovered.push(event),
        });
        const text = await runAgent(sdk, mode, { model, tools: weatherTools(sdk.ai, []), prompt: 'Weather?' });
        assert.equal(text, 'Paris is sunny.', mode);
        assert.equal(prompts.length, 2, mode);
        assert.equal(recovered.length, 1, mode);

        const seen = [];
        const healedRun = wrapped(sdk, [{ text: HERMES }, { text: 'Sunny.' }], { heal: true, recover: true, onRecover: () => assert.fail('recovered') });
        await runAgent(sdk, mode, { model: healedRun.model, tools: weatherTools(sdk.ai, seen), prompt: 'Weather?' });
        assert.deepEqual(seen, ['Paris'], mode);
        assert.equal(healedRun.prompts.length, 2, mode);
      }
    });
  });
}

describe('options', () => {
  it('are checked when the middleware is built, each named', () => {
    const cases = [
      [{ heal: 'yes' }, TypeError, /^scaffoldingMiddleware: options\.heal must be a boolean \(got string\)$/],
      [{ onHeal: 1 }, TypeError, /^scaffoldingMiddleware: options\.onHeal must be a function \(got number\)$/],
      [{ patterns: 'hermes' }, TypeError, /^scaffoldingMiddleware: options\.patterns must be an array of pattern entries/],
      [{ tools: [''] }, TypeError, /^scaffoldingMiddleware: options\.tools\[0\]: a tool's name must not be empty/],
      [{ maxHeld: 0 }, RangeError, /^scaffoldingMiddleware: options\.maxHeld must be a positive integer/],
      [
        { tool: [] },
        TypeError,
        /^scaffoldingMiddleware: options\.tool is not an option \(the options are recover, onRecover, heal, onHeal, onError, patterns, tools, openSpanAtEnd, onStrip, maxHeld, tidyWhitespace\)$/,
      ],
      [{ onError: 'log' }, TypeError, /^scaffoldingMiddleware: options\.onError must be a function \(got string\)$/],
    ];
    for (const [options, ErrorClass, message] of cases) {
      assert.throws(() => scaffoldingMiddleware(options), (error) => error instanceof ErrorClass && message.test(error.message), JSON.stringify(options));
    }
  });
});
