'use strict';
// The guard as an AI SDK language-model middleware (6 and 7). It only
// translates: the prompt's messages, the tools on offer and the answer's tool
// calls into the guard core's terms (../guard/core.cjs). It hands the model
// and the caller everything exactly as it came, and needs nothing from `ai`
// at run time.

const { Guard, MESSAGE_KINDS, withRunMembers } = require('../guard/core.cjs');
const { offeredTools } = require('./tools.cjs');

/** The text parts (and reasoning) of a message's content, one per line. */
function textOf(content) {
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of content) {
    if (part.type === 'text' || part.type === 'reasoning') text = text === '' ? part.text : `${text}\n${part.text}`;
  }
  return text;
}

/** What a tool-result part's output reads as, to the model. */
function readOutput(output) {
  switch (output?.type) {
    case 'json':
    case 'text':
      return { value: output.value, error: false };
    case 'error-json':
    case 'error-text':
      return { value: output.value, error: true };
    case 'execution-denied':
      return { value: output.reason ?? '', error: true };
    case 'content':
      // Text and media parts: the model reads the text; it is no rowset.
      return { value: textOf(output.value), error: false };
    default:
      return { value: output?.value, error: false };
  }
}

/** The call id of the first part of this type, if any. */
function firstCallId(content, type) {
  for (const part of content) {
    if (part.type === type) return part.toolCallId;
  }
  return undefined;
}

const resultEntry = (part) => ({ role: 'tool', toolName: part.toolName, toolCallId: part.toolCallId, ...readOutput(part.output) });

// The kinds of prompt message, as the guard tells them apart. An assistant
// message that calls tools is named by its first call's id, and so is the
// tool message that answers it: two kinds, so the two names never meet.
const { SYSTEM, USER, ASSISTANT, CALLS, RESULTS } = MESSAGE_KINDS;
const KINDS = { system: SYSTEM, user: USER, assistant: ASSISTANT, tool: RESULTS };

/** Reads the AI SDK's prompt messages (`LanguageModelV3Prompt` and V4) for the guard. */
const promptMessages = {
  kindOf(message) {
    const kind = KINDS[message.role] ?? USER;
    return kind === ASSISTANT && firstCallId(message.content, 'tool-call') !== undefined ? CALLS : kind;
  },
  keyOf(message, kind) {
    switch (kind) {
      case SYSTEM:
        return message.content;
      case CALLS:
        return firstCallId(message.content, 'tool-call');
      case RESULTS:
        return firstCallId(message.content, 'tool-result') ?? '';
      default:
        return textOf(message.content);
    }
  },
  entriesOf(message) {
    switch (message.role) {
      case 'system':
        return [{ role: 'system', text: message.content }];
      case 'user':
        return [{ role: 'user', text: textOf(message.content) }];
      case 'assistant': {
        const calls = [];
        const results = [];
        for (const part of message.content) {
          if (part.type === 'tool-call') calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
          // A provider-executed tool's result sits in the assistant message.
          else if (part.type === 'tool-result') results.push(resultEntry(part));
        }
        return [{ role: 'assistant', text: textOf(message.content), calls }, ...results];
      }
      case 'tool':
        return message.content.filter((part) => part.type === 'tool-result').map(resultEntry);
      default:
        return [];
    }
  },
};

/**
 * A guard for one conversation at a time: `middleware` for
 * `wrapLanguageModel`, the run's `findings` and its `ledger`.
 */
function createGuard(options) {
  const guard = new Guard(options, 'createGuard');

  /** The guard's side of a model call; its failure never reaches the run. */
  const begin = (params) => {
    try {
      return guard.modelCall(params.prompt ?? [], promptMessages, offeredTools(params));
    } catch (error) {
      guard.report(error);
      return undefined;
    }
  };
  const answered = (calls, epoch) => {
    try {
      guard.answered(calls, epoch);
    } catch (error) {
      guard.report(error);
    }
  };

  const middleware = {
    specificationVersion: 'v3',
    async wrapGenerate({ doGenerate, params }) {
      const epoch = begin(params);
      const result = await doGenerate();
      if (epoch !== undefined) answered((result.content ?? []).filter((part) => part.type === 'tool-call'), epoch);
      return result;
    },
    async wrapStream({ doStream, params }) {
      const epoch = begin(params);
      const response = await doStream();
      if (epoch === undefined) return response;
      // The answer's calls are judged together, when the answer is whole:
      // at its finish part, or when the stream ends without one.
      const calls = [];
      let judged = false;
      const judge = () => {
        if (judged) return;
        judged = true;
        answered(calls, epoch);
      };
      const watch = new TransformStream({
        transform(part, controller) {
          if (part.type === 'tool-call') calls.push(part);
          else if (part.type === 'finish') judge();
          controller.enqueue(part);
        },
        flush: judge,
      });
      return { ...response, stream: response.stream.pipeThrough(watch) };
    },
  };

  return withRunMembers(guard, {
    middleware,
    // The guard is a middleware itself too, so `middleware: guard` (an easy
    // slip for `guard.middleware`) guards rather than silently passing through.
    ...middleware,
  });
}

exports.createGuard = createGuard;
