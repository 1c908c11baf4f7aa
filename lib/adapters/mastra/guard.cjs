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
// What one request knows lives in Mastra's per-request processor `state`:
// the run its steps belong to, and what the current step offered. The
// request's first model call finds its run by the memory thread when the
// agent has one (a thread is a conversation), else from the prompt (a
// conversation whose history the app passes back continues its run); the
// request's later steps keep that run.

const { Guard, withRunMembers } = require('../../guard/core.cjs');
const { modelCalls } = require('../ai-sdk/guard.cjs');
const { functionTools } = require('../../guard/tools.cjs');
const { ScaffoldingFilter } = require('../../index.cjs');

/** The key of this processor's step in Mastra's processor state. */
const STEP = 'seamguard';
/** The key of the request's run in Mastra's processor state. */
const RUN = 'seamguard.run';
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

/** The memory thread's id, when the agent runs with memory. */
function threadOf(requestContext) {
  try {
    const id = requestContext?.get?.('MastraMemory')?.thread?.id;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A guard: a processor for a Mastra agent's `inputProcessors` and
 * `outputProcessors` (both), made once and shared by every request the agent
 * serves. `findings` and `ledger` are the latest run's, `run(id)` any live
 * run's.
 */
function createGuard(options) {
  const guard = new Guard(options, 'createGuard');
  const calls = modelCalls(guard);

  return withRunMembers(guard, {
    id: 'seamguard',
    name: 'seamguard',

    processInputStep({ state, tools, activeTools, toolChoice, requestContext }) {
      state[STEP] = { params: callParameters({ tools, activeTools, toolChoice }), texts: new Map() };
      state[RUN] ??= threadOf(requestContext);
    },

    processLLMRequest({ prompt, state }) {
      const step = state[STEP];
      if (step === undefined) return;
      // The model call, as the AI SDK middleware sees it: its answer is
      // handed over in processOutputStep.
      step.call = calls.begin({ ...step.params, prompt }, state[RUN]);
    },

    async processOutputStep({ state, toolCalls, text, messageList }) {
      const step = state[STEP];
      if (step?.call !== undefined) {
        const call = await step.call;
        step.call = undefined;
        if (call !== undefined) {
          state[RUN] = call.run;
          const content = [
            { type: 'text', text: typeof text === 'string' ? text : '' },
            ...(toolCalls ?? []).map((toolCall) => ({ type: 'tool-call', toolCallId: toolCall.toolCallId, toolName: toolCall.toolName, input: toolCall.args })),
          ];
          calls.answered(call, content);
        }
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
          step.plan ??= guard.filterPlan(functionTools(step.params));
          filter = new ScaffoldingFilter(step.plan);
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

  });
}

exports.createGuard = createGuard;
