'use strict';
// The guard as a Mastra processor (`@mastra/core` 1), for both an agent's
// `inputProcessors` and its `outputProcessors`. Mastra runs AI SDK models
// and hands `processLLMRequest` the AI SDK prompt the model is about to get,
// so this file translates Mastra's hooks into the AI SDK guard's middleware
// calls (../ai-sdk/guard.cjs), which translates them into the guard core:
//
// - processInputStep: the step's tools (less those `activeTools` leaves
//   out) and tool choice, as the AI SDK's call parameters;
// - processLLMRequest: the prompt, with those tools: the model call;
// - processOutputStep: the answer's tool calls, before any tool runs;
// - processOutputStream: the stream seam, a leaked call to a tool the step
//   offered stripped from each text (Mastra runs `generate` through the
//   same stream, and keeps the text it streamed as the answer).
//
// What one step knows lives in Mastra's per-request processor `state`.

const { createGuard: createAiSdkGuard } = require('../ai-sdk/guard.cjs');
const { filterTools, functionTools } = require('../ai-sdk/tools.cjs');
const { ScaffoldingFilter, SCAFFOLD_SPECIAL_TOKENS } = require('../index.cjs');

/** The key of this processor's step in Mastra's processor state. */
const STEP = 'seamguard';
// The state key a stream processor sets to have Mastra send one more part
// through the output processors after the one it returns (Mastra's
// `REPROCESS_PART_KEY`, documented in processors/stream-reprocess.d.ts).
const REPROCESS_PART_KEY = '__mastraReprocessPart';

/** A tool's input schema as JSON Schema: Mastra's tools carry an AI SDK schema. */
function jsonSchemaOf(tool) {
  const schema = tool?.parameters ?? tool?.inputSchema;
  return schema?.jsonSchema ?? schema;
}

/** The step's tools and tool choice as the AI SDK's call parameters. */
function callParameters({ tools = {}, activeTools, toolChoice }) {
  const active = Array.isArray(activeTools) ? new Set(activeTools) : undefined;
  const functions = [];
  for (const [name, tool] of Object.entries(tools ?? {})) {
    if (active !== undefined && !active.has(name)) continue;
    // Provider tools run on the provider's side and are never the model's to leak.
    if (tool?.type === 'provider-defined' || tool?.type === 'provider') continue;
    functions.push({ type: 'function', name, inputSchema: jsonSchemaOf(tool) });
  }
  const choice =
    toolChoice === 'none' || toolChoice === 'required' ? { type: toolChoice } : toolChoice?.type === 'tool' ? toolChoice : { type: 'auto' };
  return { tools: functions, toolChoice: choice };
}

/**
 * A guard for one conversation at a time: a processor for a Mastra agent's
 * `inputProcessors` and `outputProcessors` (both), the run's `findings` and
 * its `ledger`.
 */
function createGuard(options) {
  const guard = createAiSdkGuard(options);

  return {
    id: 'seamguard',
    name: 'seamguard',

    processInputStep({ state, tools, activeTools, toolChoice }) {
      state[STEP] = { params: callParameters({ tools, activeTools, toolChoice }), texts: new Map() };
    },

    processLLMRequest({ prompt, state }) {
      const step = state[STEP];
      if (step === undefined) return;
      // The model call, as the AI SDK middleware sees it: its answer is
      // handed over in processOutputStep.
      step.judged = guard.wrapGenerate({
        params: { ...step.params, prompt },
        doGenerate: () =>
          new Promise((resolve) => {
            step.answer = resolve;
          }),
      });
    },

    async processOutputStep({ state, toolCalls, messageList }) {
      const step = state[STEP];
      if (step?.answer !== undefined) {
        const content = (toolCalls ?? []).map((call) => ({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.args }));
        step.answer({ content });
        step.answer = undefined;
        await step.judged;
      }
      return messageList;
    },

    processOutputStream({ part, state }) {
      const step = state[STEP];
      const texts = step?.texts;
      if (part.type === 'text-delta') {
        if (texts === undefined) return part;
        let filter = texts.get(part.payload.id);
        if (filter === undefined) {
          filter = new ScaffoldingFilter({ tools: filterTools(functionTools(step.params)), patterns: SCAFFOLD_SPECIAL_TOKENS });
          texts.set(part.payload.id, filter);
        }
        const text = filter.feed(part.payload.text);
        return text ? { ...part, payload: { ...part.payload, text } } : null;
      }
      if (part.type === 'text-end' && texts?.has(part.payload.id)) {
        const tail = texts.get(part.payload.id).flush();
        texts.delete(part.payload.id);
        if (tail) {
          // The tail, then the text's end, sent through the processors again.
          state[REPROCESS_PART_KEY] = part;
          return { ...part, type: 'text-delta', payload: { id: part.payload.id, text: tail } };
        }
      }
      return part;
    },

    /** The run's findings so far, one per identity, in filing order (a copy). */
    get findings() {
      return guard.findings;
    },
    /** The run's ledger: one row per check. */
    get ledger() {
      return guard.ledger;
    },
    /** Ends the run: the next model call starts a new one, with a new ledger. */
    newRun() {
      guard.newRun();
    },
  };
}

exports.createGuard = createGuard;
