// Tool lists as real servers offer them never throw into a run. MCP servers
// hand agents tools named past 256 characters or with a line break in the
// name; tool-aware detection cannot use those names, and Rust alone decides
// which it can (`usableTools`). Every framework's guard, and the AI SDK's
// scaffolding middleware, leave such a tool out of detection, say so once
// through `onError`, and go on stripping leaks of the tools they can use.
//
// The OpenAI Agents SDK's tests need Node 22 or later, as in
// guard-openai-agents.test.mjs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { AIMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { createAgent, tool as langchainTool } from 'langchain';
import { createGuard as createAiSdkGuard, scaffoldingMiddleware } from 'seamguard/ai-sdk';
import { createGuard as createLangChainGuard } from 'seamguard/langchain';
import { createGuard as createAgentsGuard } from 'seamguard/openai-agents';

import { sdkMajors, toolOf } from '../support/agents.mjs';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const LONG = `mcp__${'very_long_server_name_'.repeat(12)}search`;
const BROKEN = 'search\nfiles';
const LEAK = 'Sure. <tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_call> Done.';
const STRIPPED = 'Sure.  Done.';
const schema = { type: 'object', properties: { city: { type: 'string' } } };

assert.ok(LONG.length > 256);

/** The errors a guard or middleware said, by message. */
const collector = () => {
  const errors = [];
  return { errors, onError: (error) => errors.push(String(error?.message ?? error)) };
};

const [sdk] = await sdkMajors();
const { ai } = sdk;

describe('tool names no detection can use: the AI SDK', () => {
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const model = () =>
    new sdk.Mock({ doGenerate: { content: [{ type: 'text', text: LEAK }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] } });
  const tools = () => ({
    get_weather: toolOf(ai, { description: 'Weather', properties: schema.properties, execute: async () => 'sunny' }),
    [LONG]: toolOf(ai, { description: 'Search', execute: async () => [] }),
    [BROKEN]: toolOf(ai, { description: 'Search files', execute: async () => [] }),
  });

  it('scaffoldingMiddleware() leaves them out of detection, says so once, and strips the rest', async () => {
    const { errors, onError } = collector();
    const middleware = scaffoldingMiddleware({ onError });
    const wrapped = ai.wrapLanguageModel({ model: model(), middleware });
    for (let n = 0; n < 2; n++) {
      const { text } = await ai.generateText({ model: wrapped, tools: tools(), prompt: 'Weather?' });
      assert.equal(text, STRIPPED);
    }
    assert.equal(errors.length, 1);
    assert.match(errors[0], /left out of tool-aware detection/);
    assert.match(errors[0], /long-name/);
    assert.match(errors[0], /line-break/);
  });

  it('the guard with them on offer: no throw, said once', async () => {
    const { errors, onError } = collector();
    const guard = createAiSdkGuard({ argumentsFrom: { get_weather: ['get_weather'] }, onError });
    const wrapped = ai.wrapLanguageModel({ model: model(), middleware: [guard.middleware, scaffoldingMiddleware({ onError })] });
    const { text } = await ai.generateText({ model: wrapped, tools: tools(), prompt: 'Weather?' });
    assert.equal(text, STRIPPED);
    assert.equal(errors.length, 1, errors.join('\n'));
  });
});

describe('tool names no detection can use: LangChain.js', () => {
  // These cases are about the strip: FakeListChatModel leaks again at every
  // turn, so a healed call would run turn after turn (heal: false).
  const tools = () =>
    ['get_weather', LONG, BROKEN].map((name) => langchainTool(async () => 'ok', { name, description: `The ${name} tool`, schema }));

  it('agent.invoke goes on, the leak of a usable tool is stripped, and it is said once', async () => {
    const { errors, onError } = collector();
    const guard = createLangChainGuard({ onError, heal: false });
    const agent = createAgent({ model: new FakeListChatModel({ responses: [LEAK, LEAK] }), tools: tools(), middleware: [guard.middleware] });
    for (let n = 0; n < 2; n++) {
      const { messages } = await agent.invoke({ messages: [{ role: 'user', content: 'Weather?' }] });
      assert.equal(messages.at(-1).text, STRIPPED);
    }
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0], /left out of tool-aware detection/);
  });

  it('streamed through guard.messages too', async () => {
    const { errors, onError } = collector();
    const guard = createLangChainGuard({ onError, heal: false });
    const agent = createAgent({ model: new FakeListChatModel({ responses: [LEAK] }), tools: tools(), middleware: [guard.middleware] });
    const stream = await agent.stream({ messages: [{ role: 'user', content: 'Weather?' }] }, { streamMode: 'messages' });
    let text = '';
    for await (const [message] of guard.messages(stream)) if (message instanceof AIMessage || message.type === 'ai') text += message.text;
    assert.ok(text.includes('Sure.') && !text.includes('tool_call'), text);
    assert.ok(errors.length <= 1, errors.join('\n'));
  });
});

describe('tool names no detection can use: the OpenAI Agents SDK', { skip: NODE_MAJOR < 22 ? 'the Agents SDK needs Node 22 or later' : false }, () => {
  it('run() goes on, the leak of a usable tool is stripped, and it is said once', async () => {
    const agents = await import('@openai/agents');
    const { ScriptedModel, assistantMessage } = await import('@openai/agents/testing');
    agents.setTracingDisabled(true);
    const { errors, onError } = collector();
    // Heal off: the case is about the strip (heal-openai-agents.test.mjs heals).
    const guard = createAgentsGuard({ onError, heal: false });
    const tools = ['get_weather', LONG, BROKEN].map((name) =>
      agents.tool({ name, description: `The ${name} tool`, parameters: { ...schema, required: ['city'], additionalProperties: false }, strict: false, execute: async () => 'ok' }),
    );
    const agent = new agents.Agent({ name: 'weather', model: guard.model(new ScriptedModel([[assistantMessage(LEAK)], [assistantMessage(LEAK)]])), tools });
    for (let n = 0; n < 2; n++) assert.equal((await agents.run(agent, 'Weather?')).finalOutput, STRIPPED);
    assert.equal(errors.length, 1, errors.join('\n'));
  });
});
