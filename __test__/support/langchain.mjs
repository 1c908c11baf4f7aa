// The claim cases (claim-cases.mjs) in LangChain.js, for the claim seam's
// field cases and its telemetry: LangChain's own fake chat model answering
// from its prompt, tools that really run, an agent with a checkpointer, and
// a callback handler that keeps the seamguard custom events it is handed.
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { MemorySaver } from '@langchain/langgraph-checkpoint';
import { createAgent, tool } from 'langchain';

import { CLAIM_TOOLS, stepOf } from './claim-cases.mjs';

const ROLES = { human: 'user', ai: 'assistant', tool: 'tool', system: 'system' };
const plainPrompt = (messages) => messages.map((message) => ({ role: ROLES[message.type] ?? 'user', text: typeof message.content === 'string' ? message.content : JSON.stringify(message.content) }));

/** The fake chat model, answering each call with `stepOf` its prompt; `prompts` records them. */
export function claimModel({ fail } = {}) {
  const model = fakeModel();
  const prompts = [];
  for (let n = 0; n < 400; n++) {
    model.respond((messages) => {
      const plain = plainPrompt(messages);
      prompts.push(plain);
      if (fail?.(plain)) throw new Error('the provider is down');
      const step = stepOf(plain);
      const id = prompts.length;
      return new AIMessage({ content: step.text ?? '', tool_calls: (step.calls ?? []).map((call, i) => ({ id: `call-${id}-${i}`, name: call.toolName, args: call.input, type: 'tool_call' })) });
    });
  }
  return { model, prompts };
}

const tools = CLAIM_TOOLS.map(({ name, description, properties, execute }) =>
  tool(async (input) => {
    const value = await execute(input);
    return typeof value === 'string' ? value : JSON.stringify(value);
  }, { name, description, schema: { type: 'object', properties, additionalProperties: false } }),
);

/**
 * An agent with `guard` and a checkpointer, and one turn of thread `thread`
 * in `mode` ('invoke' or 'stream'), `config` added to the run's config:
 * the answer's text and the state after. The agent is its `agent`.
 */
export function claimAgent(guard, model) {
  const agent = createAgent({ model, tools, middleware: [guard.middleware], checkpointer: new MemorySaver() });
  const converse = async (mode, question, thread = 't', config = {}) => {
    const input = { messages: [{ role: 'user', content: question }] };
    const runConfig = { ...config, configurable: { thread_id: thread } };
    let state;
    if (mode === 'invoke') state = await agent.invoke(input, runConfig);
    else for await (const values of await agent.stream(input, { ...runConfig, streamMode: 'values' })) state = values;
    return { text: state.messages.at(-1).text, state };
  };
  converse.agent = agent;
  return converse;
}

/** A callback handler that keeps the seamguard events it is handed, as `{ name, data }`. */
export class SignalHandler extends BaseCallbackHandler {
  name = 'signals';

  events = [];

  handleCustomEvent(name, data) {
    if (name.startsWith('seamguard.')) this.events.push({ name, data });
  }
}
