// Acting on findings in LangChain.js (`createAgent`, langchain 1): each model
// call's findings land in the agent's state as `seamguardFindings`, so a
// checkpointer keeps them per thread; with `stopOn`, the middleware's
// afterModel jumps ('end' by default, or 'model') when one trips. LangChain's
// own fake chat model, tools whose functions really run, `invoke` and
// `stream`, and LangGraph's MemorySaver.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { MemorySaver } from '@langchain/langgraph-checkpoint';
import { createAgent, tool } from 'langchain';
import { createGuard } from 'seamguard/langchain';

import { RUNS, stepsOf } from '../support/field-cases.mjs';
import { CONVERSATIONS, Router, SERVER } from '../support/server-cases.mjs';

/** Tools as LangChain tools; `ran` hears each one that runs. */
const toolsOf = (tools, ran = []) =>
  tools.map(({ name, description, properties, execute }) =>
    tool(
      (input) => {
        ran.push(name);
        return execute(input);
      },
      { name, description, schema: { type: 'object', properties, additionalProperties: false } },
    ),
  );

const answerOf = (step) =>
  new AIMessage({ content: step.text ?? '', tool_calls: step.calls.map((call) => ({ id: call.toolCallId, name: call.toolName, args: call.input, type: 'tool_call' })) });

function scripted(script) {
  const model = fakeModel();
  for (const step of stepsOf(script)) model.respond(answerOf(step));
  return model;
}

/** An agent for `run` with `guard` (none when undefined) and a checkpointer. */
function agentOf(run, guard, { script = run.script, ran } = {}) {
  const model = scripted(script);
  const agent = createAgent({ model, tools: toolsOf(run.tools(), ran), systemPrompt: run.system, middleware: guard ? [guard.middleware] : [], checkpointer: new MemorySaver() });
  return { agent, model };
}

/**
 * Plays `prompt` on `agent` in `mode` ('invoke', or 'stream' through
 * `guard.messages`) on `thread`; resolves to the thread's state after it.
 */
async function play(agent, guard, mode, prompt, thread = 't1') {
  const input = { messages: [{ role: 'user', content: prompt }] };
  const config = { configurable: { thread_id: thread } };
  if (mode === 'invoke') return agent.invoke(input, config);
  const stream = await agent.stream(input, { ...config, streamMode: 'messages' });
  for await (const item of guard ? guard.messages(stream) : stream) void item;
  return (await agent.getState(config)).values;
}

const kinds = (findings) => findings.map((finding) => [finding.kind, finding.toolCallId, finding.trips]);
const MODES = ['invoke', 'stream'];

describe('LangChain.js: seamguardFindings in the agent state', () => {
  for (const mode of MODES) {
    it(`${mode}: each model call's findings land in the state; the messages are as bare`, async () => {
      const guard = createGuard({ argumentsFrom: RUNS.backup.argumentsFrom });
      const state = await play(agentOf(RUNS.backup, guard).agent, guard, mode, RUNS.backup.prompt);
      const bare = await play(agentOf(RUNS.backup).agent, undefined, mode, RUNS.backup.prompt);
      assert.deepEqual(
        state.messages.map((message) => [message.type, message.text]),
        bare.messages.map((message) => [message.type, message.text]),
      );
      assert.deepEqual(bare.seamguardFindings, undefined);
      assert.deepEqual(kinds(state.seamguardFindings), [
        ['unsupported-argument', 'call-1-0', false],
        ['unsupported-argument', 'call-1-1', false],
      ]);
      assert.deepEqual(state.seamguardFindings[0].tools, ['backup_status']);
      assert.equal(state.seamguardFindings[0].value, '4417-ganymede');
      assert.deepEqual(state.seamguardFindings.map((finding) => finding.message), guard.findings.map((finding) => finding.message));
    });
  }

  it('a checkpointer keeps them per thread: the next turn on the thread sees the first turn\u2019s, once; another thread has its own', async () => {
    const guard = createGuard({ argumentsFrom: RUNS.triage.argumentsFrom });
    const script = [...RUNS.triage.script, { text: 'Nothing more.' }, { text: 'Hello.' }];
    const { agent } = agentOf(RUNS.triage, guard, { script });
    const first = await play(agent, guard, 'invoke', RUNS.triage.prompt, 'a');
    assert.deepEqual(kinds(first.seamguardFindings), [['empty-lookup', 'call-1-0', false]]);
    const second = await play(agent, guard, 'stream', 'Anything else?', 'a');
    assert.equal(second.messages.at(-1).text, 'Nothing more.');
    assert.deepEqual(second.seamguardFindings, first.seamguardFindings);
    const other = await play(agent, guard, 'invoke', 'Something new.', 'b');
    assert.deepEqual(other.seamguardFindings, []);
  });
});

describe('LangChain.js: stopOn and the jump', () => {
  for (const mode of MODES) {
    it(`${mode}: a tripping finding ends the run after the model call; the call's tools never run`, async () => {
      const ran = [];
      const guard = createGuard({ argumentsFrom: RUNS.backup.argumentsFrom, stopOn: ['unsupported-argument'] });
      const state = await play(agentOf(RUNS.backup, guard, { ran }).agent, guard, mode, RUNS.backup.prompt);
      assert.deepEqual(ran, ['fleet_report']);
      assert.deepEqual(state.messages.at(-1).tool_calls.map((call) => call.id), ['call-1-0', 'call-1-1', 'call-1-2']);
      assert.deepEqual(kinds(state.seamguardFindings), [
        ['unsupported-argument', 'call-1-0', true],
        ['unsupported-argument', 'call-1-1', true],
      ]);
    });
  }

  it("jumpTo: 'model' asks the model again instead of running the call's tools", async () => {
    const ran = [];
    const guard = createGuard({ argumentsFrom: RUNS.backup.argumentsFrom, stopOn: ['unsupported-argument'], jumpTo: 'model' });
    const { agent, model } = agentOf(RUNS.backup, guard, { ran });
    const state = await play(agent, guard, 'invoke', RUNS.backup.prompt);
    assert.deepEqual(ran, ['fleet_report']);
    assert.equal(model.calls.length, 3);
    assert.equal(state.messages.at(-1).text, 'Done.');
    assert.equal(state.seamguardFindings.length, 2);
  });

  it('a finding of a kind stopOn does not name runs on', async () => {
    const ran = [];
    const guard = createGuard({ argumentsFrom: RUNS.backup.argumentsFrom, stopOn: ['empty-lookup'] });
    const state = await play(agentOf(RUNS.backup, guard, { ran }).agent, guard, 'invoke', RUNS.backup.prompt);
    assert.equal(ran.length, 4);
    assert.equal(state.messages.at(-1).text, 'Done.');
  });

  it('a throwing onFinding does not stop the trip', async () => {
    const errors = [];
    const ran = [];
    const guard = createGuard({
      argumentsFrom: RUNS.backup.argumentsFrom,
      stopOn: true,
      onFinding: () => {
        throw new Error('the app failed');
      },
      onError: (error) => errors.push(error.message),
    });
    await play(agentOf(RUNS.backup, guard, { ran }).agent, guard, 'stream', RUNS.backup.prompt);
    assert.deepEqual(ran, ['fleet_report']);
    assert.deepEqual(errors, ['the app failed', 'the app failed']);
  });

  it('jumpTo is checked when the guard is made', () => {
    for (const jumpTo of ['tools', 7, null]) {
      assert.throws(() => createGuard({ jumpTo }), { name: 'TypeError', message: /^createGuard: options\.jumpTo must be 'end' or 'model'/ });
    }
    assert.throws(() => createGuard({ jumpTo: 'end', stopOn: 'all' }), { name: 'TypeError', message: /options\.stopOn must be true or an array/ });
    // A misspelt jumpTo is named among the options the guard knows.
    assert.throws(() => createGuard({ jumpto: 'model' }), { name: 'TypeError', message: /^createGuard: unknown option "jumpto" \(known: .*, jumpTo; did you mean jumpTo\?\)$/ });
  });

  it('eight conversations at once on one agent, guard and checkpointer, half streaming: each trips where a guard of its own trips it', async () => {
    const options = { argumentsFrom: SERVER.argumentsFrom, stopOn: ['unsupported-argument'] };
    const serve = (guard, router) => {
      const model = fakeModel();
      for (let n = 0; n < 200; n++) model.respond((messages) => answerOf(router.answer(JSON.stringify(messages))));
      const agent = createAgent({ model, tools: toolsOf(SERVER.tools()), systemPrompt: SERVER.system, middleware: [guard.middleware], checkpointer: new MemorySaver() });
      return async (conversation) => {
        const state = await play(agent, guard, conversation.stream ? 'stream' : 'invoke', conversation.prompt, `thread-${conversation.index}`);
        return {
          stoppedAtCalls: (state.messages.at(-1).tool_calls ?? []).length > 0,
          findings: state.seamguardFindings.map((finding) => [finding.kind, finding.tools[0], finding.value, finding.trips]),
        };
      };
    };
    const alone = await Promise.all(CONVERSATIONS.map((conversation) => serve(createGuard(options), new Router([conversation]))(conversation)));
    const errors = [];
    const converse = serve(createGuard({ ...options, onError: (error) => errors.push(error) }), new Router(CONVERSATIONS));
    const together = await Promise.all(CONVERSATIONS.map(converse));
    assert.deepEqual(errors, []);
    // Conversations that open alike get their scripts in the order they ask: compared as sets.
    const sorted = (all) => all.map((result) => JSON.stringify(result)).sort();
    assert.deepEqual(sorted(together), sorted(alone));
    const stopped = alone.filter((result) => result.stoppedAtCalls).length;
    assert.ok(stopped >= 2 && stopped < CONVERSATIONS.length, `some conversations stop, some run on (${stopped})`);
  });
});
