// The claim cases (claim-cases.mjs) in the OpenAI Agents SDK, for the claim
// seam's field cases and its telemetry: a fake `Model` answering from its
// input, function tools that really run, one turn through the SDK's runner,
// and a tracing processor that keeps the spans of the runs' traces. The SDK
// needs Node 22 or later, so its module is handed in (`sdk`), never
// imported here.
import { CLAIM_TOOLS, stepOf } from './claim-cases.mjs';

const USAGE = { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** A model input as `[{ role, text }]`. */
function plainInput(request) {
  const items = typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input;
  return items.map((item) => {
    if (item.type === 'function_call_result') return { role: 'tool', text: JSON.stringify(item.output) };
    if (item.type === 'function_call') return { role: 'assistant', text: item.arguments };
    const text = typeof item.content === 'string' ? item.content : (item.content ?? []).map((part) => part.text ?? '').join('');
    return { role: item.role ?? 'assistant', text };
  });
}

/**
 * The claim cases on `sdk` (`@openai/agents`): `ClaimModel`, a fake `Model`
 * answering each request with `stepOf` its input (`prompts` records them),
 * and `turn`, which runs one turn.
 */
export function claimAgents(sdk) {
  const tools = () =>
    CLAIM_TOOLS.map(({ name, description, properties, execute }) =>
      sdk.tool({ name, description, parameters: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false }, strict: false, execute: async (input) => {
        const value = await execute(input);
        return typeof value === 'string' ? value : JSON.stringify(value);
      } }),
    );

  class ClaimModel {
    constructor({ fail } = {}) {
      this.prompts = [];
      this.fail = fail;
    }

    outputOf(request) {
      const plain = plainInput(request);
      const n = this.prompts.push(plain) - 1;
      if (this.fail?.(plain)) throw new Error('the provider is down');
      const step = stepOf(plain);
      if (step.text !== undefined) return [{ type: 'message', role: 'assistant', status: 'completed', id: `msg_${n}`, content: [{ type: 'output_text', text: step.text }] }];
      return step.calls.map((call, i) => ({ type: 'function_call', callId: `call-${n}-${i}`, name: call.toolName, arguments: JSON.stringify(call.input), status: 'completed' }));
    }

    async getResponse(request) {
      return { usage: new sdk.Usage(USAGE), output: this.outputOf(request), responseId: `resp_${this.prompts.length}` };
    }

    async *getStreamedResponse(request) {
      const output = this.outputOf(request);
      yield { type: 'response_started' };
      for (const item of output) {
        if (item.type !== 'message') continue;
        const { text } = item.content[0];
        for (let i = 0; i < text.length; i += 5) yield { type: 'output_text_delta', itemId: item.id, delta: text.slice(i, i + 5) };
      }
      yield { type: 'response_done', response: { id: `resp_${this.prompts.length}`, usage: USAGE, output } };
    }
  }

  /**
   * One turn in `mode` ('run' or 'stream'): `history` so far and the user's
   * question, on a runner made with `runConfig` when given (its trace's
   * `groupId`, say): the final output, the streamed text and the history
   * after.
   */
  async function turn(mode, guard, model, history, question, runConfig = undefined) {
    const agent = new sdk.Agent({ name: 'assistant', model: guard.model(model), tools: tools() });
    const input = [...history, { role: 'user', content: question }];
    const run = runConfig === undefined ? sdk.run : (...args) => new sdk.Runner(runConfig).run(...args);
    if (mode === 'run') {
      const result = await run(agent, input);
      return { text: result.finalOutput, history: result.history };
    }
    const result = await run(agent, input, { stream: true });
    let streamed = '';
    for await (const delta of result.toTextStream()) streamed += delta;
    await result.completed;
    return { text: result.finalOutput, streamed, history: result.history };
  }

  return { ClaimModel, turn };
}

/**
 * The Agents SDK with tracing on and every span kept, for a telemetry test:
 * `{ skip, sdk, kept }`; on Node 20, where the SDK does not run, `skip`
 * says why and `sdk` is undefined.
 */
export async function tracedAgentsSdk() {
  const major = Number(process.versions.node.split('.')[0]);
  const skip = major < 22 ? `@openai/agents needs Node 22 or later (its openai 7 does); this is Node ${process.versions.node}` : false;
  const kept = new KeptSpans();
  if (skip) return { skip, sdk: undefined, kept };
  const sdk = await import('@openai/agents');
  sdk.setTracingDisabled(false);
  sdk.setTraceProcessors([kept]);
  return { skip, sdk, kept };
}

/**
 * A tracing processor that keeps every span that ended, as `{ traceId,
 * spanId, parentId, data }`, and each trace's `groupId` by its id.
 */
export class KeptSpans {
  spans = [];

  groups = new Map();

  async onTraceStart(trace) {
    this.groups.set(trace.traceId, trace.groupId);
  }

  async onTraceEnd() {}

  async onSpanStart() {}

  async onSpanEnd(span) {
    this.spans.push({ traceId: span.traceId, spanId: span.spanId, parentId: span.parentId, data: span.spanData });
  }

  async shutdown() {}

  async forceFlush() {}

  /** The seamguard custom spans, as `{ name, traceId, parent, data }` (`parent` the type of the span they sit under). */
  signals() {
    return this.spans
      .filter((span) => span.data.type === 'custom' && span.data.name.startsWith('seamguard.'))
      .map((span) => ({ name: span.data.name, traceId: span.traceId, parent: this.spans.find((other) => other.spanId === span.parentId)?.data.type, data: span.data.data }));
  }
}
