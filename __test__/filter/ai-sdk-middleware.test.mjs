import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { scaffoldingMiddleware } from 'seamguard/ai-sdk';
import { SCAFFOLD_PRESETS, SCAFFOLD_SPECIAL_TOKENS } from 'seamguard';

import { sdkMajors } from '../support/agents.mjs';
import { bareOutputs, goldenChunkings } from '../support/helpers.mjs';

// Every case runs under each AI SDK major this Node runs: 6, and 7 on Node
// 22 and later, each with its own mock model.
for (const sdk of await sdkMajors()) {
  const { generateText, simulateReadableStream, streamText, wrapLanguageModel } = sdk.ai;
  const MockLanguageModelV3 = sdk.Mock;
  describe(`AI SDK ${sdk.major}`, () => {
    const S = '<|tool_call_start|>';
    const E = '<|tool_call_end|>';
    const CALL = '<|tool_call|>';

    const USAGE = {
      inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 9, text: 9, reasoning: undefined },
    };
    const FINISH = { type: 'finish', usage: USAGE, finishReason: { unified: 'stop', raw: 'stop' } };

    const start = (id) => ({ type: 'text-start', id });
    const delta = (id, text) => ({ type: 'text-delta', id, delta: text });
    const end = (id) => ({ type: 'text-end', id });

    /** A mock model streaming `parts` between stream-start and finish, wrapped in the middleware. */
    function streamingModel(parts, { finish = true, options } = {}) {
      const chunks = [{ type: 'stream-start', warnings: [] }, ...parts, ...(finish ? [FINISH] : [])];
      const model = new MockLanguageModelV3({
        doStream: async () => ({
          stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null }),
        }),
      });
      return wrapLanguageModel({ model, middleware: scaffoldingMiddleware(options) });
    }

    /** The parts the wrapped model streams, stream-start left out. */
    async function streamedParts(parts, settings) {
      const { stream } = await streamingModel(parts, settings).doStream({ prompt: [] });
      const out = [];
      for await (const part of stream) out.push(part);
      assert.equal(out[0].type, 'stream-start');
      return out.slice(1);
    }

    function generatingModel(content, options) {
      const model = new MockLanguageModelV3({
        doGenerate: async () => ({ content, finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE, warnings: [] }),
      });
      return wrapLanguageModel({ model, middleware: scaffoldingMiddleware(options) });
    }

    describe('wrapStream', () => {
      it('strips markup split across deltas, sending the held tail before text-end', async () => {
        const out = await streamedParts([
          start('t'),
          delta('t', 'Hello <|tool_'),
          delta('t', 'call_start|>[lookup(id='),
          delta('t', `7)]<|tool_call`),
          delta('t', '_end|> world <|tool_'),
          end('t'),
        ]);
        assert.deepEqual(out, [
          start('t'),
          delta('t', 'Hello '),
          delta('t', ' world '),
          delta('t', '<|tool_'),
          end('t'),
          FINISH,
        ]);
      });

      it('keeps one filter per text id, so interleaved texts never join', async () => {
        const out = await streamedParts([
          start('a'),
          start('b'),
          delta('a', 'one <|tool_'),
          delta('b', 'call|>two'),
          delta('a', 'call|> three'),
          delta('b', ` <|tool_calls|>four${S}[x(`),
          end('b'),
          end('a'),
        ]);
        assert.deepEqual(out, [
          start('a'),
          start('b'),
          delta('a', 'one '),
          delta('b', 'call|>two'),
          delta('a', ' three'),
          delta('b', ' four'),
          delta('b', `${S}[x(`),
          end('b'),
          end('a'),
          FINISH,
        ]);
      });

      it('passes every other part through untouched and in order', async () => {
        const others = [
          { type: 'response-metadata', id: 'r1', modelId: 'mock' },
          { type: 'reasoning-start', id: 'r' },
          { type: 'reasoning-delta', id: 'r', delta: `thinking ${CALL} <|tool_` },
          { type: 'reasoning-end', id: 'r' },
          { type: 'tool-input-start', id: 'c1', toolName: 'lookup' },
          { type: 'tool-input-delta', id: 'c1', delta: `{"q":"${S}"}` },
          { type: 'tool-input-end', id: 'c1' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: `{"q":"${S}"}` },
          { type: 'source', sourceType: 'url', id: 's1', url: 'https://example.com/<|tool_call|>' },
          { type: 'raw', rawValue: { text: CALL } },
          { type: 'error', error: new Error(`upstream ${CALL}`) },
        ];
        const [first, second] = [delta('t', 'a <|tool_'), delta('t', 'call|>b')];
        const parts = [start('t'), others[0], first, ...others.slice(1, 6), second, ...others.slice(6), end('t')];
        const out = await streamedParts(parts);
        const cleaned = new Map([[first, delta('t', 'a ')], [second, delta('t', 'b')]]);
        assert.deepEqual(out, [...parts.map((part) => cleaned.get(part) ?? part), FINISH]);
        const passed = out.filter((part) => !part.type.startsWith('text-') && part.type !== 'finish');
        passed.forEach((part, index) => assert.equal(part, others[index], `${others[index].type} is the same object`));
      });

      it('ends a text with no text-end at finish, or at the close', async () => {
        const parts = [start('t'), delta('t', 'x <|tool_call')];
        assert.deepEqual(await streamedParts(parts), [start('t'), delta('t', 'x '), delta('t', '<|tool_call'), FINISH]);
        assert.deepEqual(await streamedParts(parts, { finish: false }), [start('t'), delta('t', 'x '), delta('t', '<|tool_call')]);
      });

      it('drops an emptied delta, unless it carries provider metadata', async () => {
        const providerMetadata = { mock: { logprob: -0.5 } };
        const out = await streamedParts([
          start('t'),
          delta('t', 'a'),
          delta('t', CALL),
          { ...delta('t', '<|tool'), providerMetadata },
          delta('t', '_call|>b'),
          end('t'),
        ]);
        assert.deepEqual(out, [start('t'), delta('t', 'a'), { ...delta('t', ''), providerMetadata }, delta('t', 'b'), end('t'), FINISH]);
      });

      it('given the default patterns, sends what the reference filter emits, for every golden chunking', async () => {
        for (const { name, chunks } of goldenChunkings()) {
          const parts = [start('t'), ...chunks.map((chunk) => delta('t', chunk)), end('t')];
          const out = await streamedParts(parts, { options: { patterns: SCAFFOLD_PRESETS.lfm2 } });
          const texts = out.filter((part) => part.type === 'text-delta').map((part) => part.delta);
          assert.deepEqual(texts, bareOutputs(chunks), name);
        }
      });

      it('by default, sends what a filter for every family\'s special tokens emits', async () => {
        for (const { name, chunks } of goldenChunkings()) {
          const out = await streamedParts([start('t'), ...chunks.map((chunk) => delta('t', chunk)), end('t')]);
          const texts = out.filter((part) => part.type === 'text-delta').map((part) => part.delta);
          assert.deepEqual(texts, bareOutputs(chunks, { patterns: SCAFFOLD_SPECIAL_TOKENS }), name);
        }
      });

      it('works end to end under streamText', async () => {
        const model = streamingModel([
          { type: 'reasoning-start', id: 'r' },
          { type: 'reasoning-delta', id: 'r', delta: `plan ${CALL}` },
          { type: 'reasoning-end', id: 'r' },
          start('t'),
          delta('t', 'The port is <|tool'),
          delta('t', `_call_start|>[port_for_device(wwpn='20:00')]`),
          delta('t', `${E} 7\uD83D`),
          delta('t', '\uDE00.'),
          end('t'),
        ]);
        const result = streamText({ model, prompt: 'Which port?' });
        const pieces = [];
        for await (const piece of result.textStream) pieces.push(piece);
        assert.equal(pieces.join(''), 'The port is  7😀.');
        assert.equal(await result.text, 'The port is  7😀.');
        assert.equal(await result.reasoningText, `plan ${CALL}`);
        assert.ok(pieces.every((piece) => piece !== ''));
      });
    });

    describe('wrapGenerate', () => {
      const content = [
        { type: 'reasoning', text: `why ${CALL}` },
        { type: 'text', text: `Device found${S}[read(path='x')]${E} on port 7.<|tool_call` },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: `{"q":"${CALL}"}` },
        { type: 'text', text: `${CALL}`, providerMetadata: { mock: { n: 1 } } },
      ];

      it('filters each text part whole and returns every other part as it came', async () => {
        const result = await generatingModel(content).doGenerate({ prompt: [] });
        assert.deepEqual(result.content, [
          content[0],
          { type: 'text', text: 'Device found on port 7.<|tool_call' },
          content[2],
          { type: 'text', text: '', providerMetadata: { mock: { n: 1 } } },
        ]);
        assert.equal(result.content[0], content[0]);
        assert.equal(result.content[2], content[2]);
        assert.equal(result.finishReason.unified, 'stop');
        assert.deepEqual(result.usage, USAGE);
      });

      it('works end to end under generateText', async () => {
        const result = await generateText({ model: generatingModel(content), prompt: 'Where?' });
        assert.equal(result.text, 'Device found on port 7.<|tool_call');
        assert.equal(result.reasoningText, `why ${CALL}`);
      });
    });

    // These need ScaffoldingFilter's options, which land in a parallel change.
    describe('passes options through', () => {
      it('wrapStream hands its options to the filter of every text id (onStrip)', async () => {
        const events = [];
        await streamedParts(
          [start('a'), start('b'), delta('a', `x${CALL}`), delta('b', `${S}y${E}z`), end('a'), end('b')],
          { options: { onStrip: (event) => events.push(event) } },
        );
        assert.equal(events.length, 2);
      });

      it('wrapGenerate hands its options to the filter of every text part (onStrip)', async () => {
        const events = [];
        const model = generatingModel(
          [
            { type: 'text', text: `x${CALL}` },
            { type: 'text', text: `${S}y${E}z` },
          ],
          { onStrip: (event) => events.push(event) },
        );
        await model.doGenerate({ prompt: [] });
        assert.equal(events.length, 2);
      });
    });

    // ---- the one bounded recovery ------------------------------------------------

    const MARKUP = `${S}[search(q="weather")]${E}`;
    const textParts = (id, ...deltas) => [start(id), ...deltas.map((text) => delta(id, text)), end(id)];
    /** A round as a factory: each call gets its own stream. */
    const streamRound = (parts, usage = USAGE) => () => ({
      stream: simulateReadableStream({
        chunks: [{ type: 'stream-start', warnings: [] }, { type: 'response-metadata', id: `r${parts.length}` }, ...parts, { ...FINISH, usage }],
        initialDelayInMs: null,
        chunkDelayInMs: null,
      }),
    });
    const generateRound = (content) => ({ content, finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE, warnings: [] });

    /** A mock model that answers each call with the next round, counting calls. */
    function roundsModel({ streams = [], generates = [] }, options) {
      const calls = { stream: 0, generate: 0 };
      const model = new MockLanguageModelV3({
        doStream: async (params) => {
          const round = streams[Math.min(calls.stream++, streams.length - 1)];
          return round(params);
        },
        doGenerate: async (params) => {
          const round = generates[Math.min(calls.generate++, generates.length - 1)];
          return typeof round === 'function' ? round(params) : round;
        },
      });
      return { model: wrapLanguageModel({ model, middleware: scaffoldingMiddleware(options) }), calls };
    }

    const TOOL_CALL = { type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: '{"q":"weather"}' };

    describe('recover', () => {
      it('asks a deflected round again, once, and delivers the second answer (streamText)', async () => {
        const recovered = [];
        const { model, calls } = roundsModel(
          { streams: [streamRound(textParts('t', ' ', MARKUP.slice(0, 9), MARKUP.slice(9), '\n')), streamRound(textParts('t', 'It is ', 'sunny.'))] },
          { recover: true, onRecover: (event) => recovered.push(event) },
        );
        const result = streamText({ model, prompt: 'Weather?' });
        const parts = [];
        for await (const part of result.fullStream) parts.push(part);
        assert.equal(await result.text, 'It is sunny.');
        assert.equal(calls.stream, 2);
        assert.deepEqual(recovered, [{ round: 1, stripped: [MARKUP], recovered: true }]);
        // Nothing of the deflected round reached the reader, and nothing twice.
        assert.equal(parts.filter((p) => p.type === 'start-step').length, 1);
        assert.equal(parts.filter((p) => p.type === 'finish').length, 1);
        assert.ok(!parts.some((p) => p.type === 'text-delta' && !/It is |sunny/.test(p.text)), JSON.stringify(parts));
        // Both rounds were paid for.
        assert.equal((await result.usage).outputTokens, 18);
      });

      it('asks a deflected round again, once, and returns the second answer (generateText)', async () => {
        const recovered = [];
        const { model, calls } = roundsModel(
          { generates: [generateRound([{ type: 'text', text: `\n${MARKUP} ` }]), generateRound([{ type: 'text', text: 'It is sunny.' }])] },
          { recover: true, onRecover: (event) => recovered.push(event) },
        );
        const result = await generateText({ model, prompt: 'Weather?' });
        assert.equal(result.text, 'It is sunny.');
        assert.equal(calls.generate, 2);
        assert.deepEqual(recovered, [{ round: 1, stripped: [MARKUP], recovered: true }]);
        assert.equal(result.usage.outputTokens, 18);
      });

      it('calls a model that always deflects exactly twice, and answers empty', async () => {
        const recovered = [];
        const { model, calls } = roundsModel(
          { streams: [streamRound(textParts('t', MARKUP))], generates: [generateRound([{ type: 'text', text: MARKUP }])] },
          { recover: true, onRecover: (event) => recovered.push(event) },
        );
        assert.equal((await generateText({ model, prompt: 'x' })).text, '');
        assert.equal(calls.generate, 2);
        const streamed = streamText({ model, prompt: 'x' });
        assert.equal(await streamed.text, '');
        assert.equal(calls.stream, 2);
        assert.deepEqual(recovered.map((event) => event.recovered), [false, false]);
      });

      it('delivers real text around markup as it is, after one call', async () => {
        const { model, calls } = roundsModel(
          {
            streams: [streamRound(textParts('t', 'Let me look. ', MARKUP, ' Done.'))],
            generates: [generateRound([{ type: 'text', text: `Let me look. ${MARKUP} Done.` }])],
          },
          { recover: true, onRecover: () => assert.fail('no recovery') },
        );
        assert.equal((await generateText({ model, prompt: 'x' })).text, 'Let me look.  Done.');
        assert.equal(await streamText({ model, prompt: 'x' }).text, 'Let me look.  Done.');
        assert.deepEqual(calls, { stream: 1, generate: 1 });
      });

      it('goes on to a real tool call beside markup, after one call', async () => {
        const { model, calls } = roundsModel(
          {
            streams: [streamRound([...textParts('t', MARKUP), TOOL_CALL])],
            generates: [generateRound([{ type: 'text', text: MARKUP }, TOOL_CALL])],
          },
          { recover: true, onRecover: () => assert.fail('no recovery') },
        );
        const generated = await generateText({ model, prompt: 'x' });
        assert.equal(generated.toolCalls.length, 1);
        const streamed = streamText({ model, prompt: 'x' });
        assert.equal((await streamed.toolCalls).length, 1);
        assert.deepEqual(calls, { stream: 1, generate: 1 });
      });

      it('with recover off (the default), calls once and delivers the empty answer', async () => {
        for (const options of [undefined, {}, { recover: false }]) {
          const { model, calls } = roundsModel(
            { streams: [streamRound(textParts('t', MARKUP))], generates: [generateRound([{ type: 'text', text: MARKUP }])] },
            options,
          );
          assert.equal((await generateText({ model, prompt: 'x' })).text, '');
          assert.equal(await streamText({ model, prompt: 'x' }).text, '');
          assert.deepEqual(calls, { stream: 1, generate: 1 });
        }
      });

      it('passes an error thrown by the second call through', async () => {
        const failing = () => {
          throw new Error('provider down');
        };
        const { model, calls } = roundsModel(
          { streams: [streamRound(textParts('t', MARKUP)), failing], generates: [generateRound([{ type: 'text', text: MARKUP }]), failing] },
          { recover: true },
        );
        await assert.rejects(generateText({ model, prompt: 'x', maxRetries: 0 }), /provider down/);
        assert.equal(calls.generate, 2);
        const errors = [];
        const streamed = streamText({ model, prompt: 'x', onError: ({ error }) => errors.push(error) });
        for await (const part of streamed.fullStream) void part;
        assert.equal(calls.stream, 2);
        assert.match(String(errors[0]), /provider down/);
      });

      it('stops on an abort during the second round, as the model\'s own stream would', async () => {
        // An aborting stream: ai 6 rejects the reader with the reason, ai 7
        // ends the stream with an abort part. The recovery's second round
        // must end the way the model's own first round would.
        const aborting = (controller) => (params) => ({
          stream: new ReadableStream({
            start(streamController) {
              streamController.enqueue({ type: 'stream-start', warnings: [] });
              streamController.enqueue(start('t'));
              params.abortSignal?.addEventListener('abort', () => streamController.error(params.abortSignal.reason));
              controller.abort(new Error('the user left'));
            },
          }),
        });
        const outcome = async (model, controller) => {
          const parts = [];
          try {
            for await (const part of streamText({ model, prompt: 'x', abortSignal: controller.signal }).fullStream) parts.push(part);
            return { rejected: undefined, types: parts.map((part) => part.type), parts };
          } catch (error) {
            return { rejected: error.message, types: parts.map((part) => part.type), parts };
          }
        };
        const bareController = new AbortController();
        const bare = await outcome(new MockLanguageModelV3({ doStream: async (params) => aborting(bareController)(params) }), bareController);
        const controller = new AbortController();
        const { model, calls } = roundsModel({ streams: [streamRound(textParts('t', MARKUP)), aborting(controller)] }, { recover: true });
        const wrapped = await outcome(model, controller);
        assert.equal(calls.stream, 2);
        assert.equal(wrapped.rejected, bare.rejected);
        assert.deepEqual(wrapped.types, bare.types);
        assert.ok(!wrapped.parts.some((part) => part.type === 'text-delta'), JSON.stringify(wrapped.parts));
      });

      it('stops on an abort during the second generate call, and cuts long spans in the event', async () => {
        const controller = new AbortController();
        const long = `${S}[write(text="${'x'.repeat(500)}")]${E}`;
        const recovered = [];
        const { model, calls } = roundsModel(
          {
            generates: [
              generateRound([{ type: 'text', text: long }]),
              (params) => {
                controller.abort(new Error('the user left'));
                return Promise.reject(params.abortSignal.reason);
              },
            ],
          },
          { recover: true, onRecover: (event) => recovered.push(event) },
        );
        await assert.rejects(generateText({ model, prompt: 'x', abortSignal: controller.signal, maxRetries: 0 }), /the user left/);
        assert.equal(calls.generate, 2);
        assert.deepEqual(recovered, [], 'a retry that never ended reports nothing');
        const { model: cut } = roundsModel(
          { generates: [generateRound([{ type: 'text', text: long }]), generateRound([{ type: 'text', text: 'ok' }])] },
          { recover: true, onRecover: (event) => recovered.push(event) },
        );
        await generateText({ model: cut, prompt: 'x' });
        assert.equal(recovered[0].stripped[0], long.slice(0, 200));
      });

      it('refuses bad recovery options, naming them', () => {
        assert.throws(() => scaffoldingMiddleware({ recover: 'yes' }), /options\.recover must be a boolean \(got string\)/);
        assert.throws(() => scaffoldingMiddleware({ onRecover: 1 }), /options\.onRecover must be a function \(got number\)/);
        assert.throws(() => scaffoldingMiddleware(null), /options must be an object \(got null\)/);
      });
    });
  });
}
