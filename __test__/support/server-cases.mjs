// One guard for a whole server, for any framework: eight conversations at
// once on one agent and one guard, half of them streaming and four opening
// with the same words, must each get exactly the findings and the ledger a
// guard of their own would give, told apart by `run.id`; conversations
// that open alike, one after another, stay apart too.
//
// The agent's one model is a `Router`: a fake model that, like a real one,
// serves any number of conversations. It gives each new conversation (a
// prompt it has issued no call id into) the next script waiting for that
// opening, and finds a conversation again by the call ids it issued
// (`sv<k>-<step>-<n>`), so conversation k's calls are named alike whether it
// runs alone or among the others.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { RUNS } from './field-cases.mjs';

const SAME = 'Which port is my host on?';

/** The agent's tools and arming: every field case's tools at once. */
export const SERVER = {
  system: 'You look after the fabric, the backups and the shares.',
  tools: () => [...RUNS.triage.tools(), ...RUNS.backup.tools(), ...RUNS.unmounted.tools()],
  argumentsFrom: { ...RUNS.triage.argumentsFrom, ...RUNS.backup.argumentsFrom, ...RUNS.unmounted.argumentsFrom },
};

/** The eight conversations: the first four open alike; every other one streams. */
export const CONVERSATIONS = [
  { script: RUNS.triage.script, prompt: SAME },
  { script: RUNS.recall.script, prompt: SAME },
  { script: RUNS.backup.script, prompt: SAME },
  { script: RUNS.quiet.script, prompt: SAME },
  { script: RUNS.triage.script, prompt: 'Where is host-b logged in?' },
  { script: RUNS.backup.script, prompt: 'Are the fleet machines backed up?' },
  { script: RUNS.unmounted.script, prompt: 'Mount the share.' },
  { script: RUNS.recall.script, prompt: 'Go on with the fabric.' },
].map((conversation, index) => ({ ...conversation, index, stream: index % 2 === 1 }));

/**
 * A fake model's answers for the conversations `conversations` (a subset of
 * CONVERSATIONS, keeping their indices): `answer(promptText)` is the next
 * step of the conversation the prompt belongs to, `{ text?, calls }` with
 * call ids `sv<k>-<step>-<n>`.
 */
export class Router {
  constructor(conversations) {
    this.waiting = [...conversations];
    this.byIndex = new Map(conversations.map((conversation) => [conversation.index, conversation]));
    this.steps = new Map();
  }

  answer(promptText) {
    const ids = [...promptText.matchAll(/\bsv(\d+)-\d+-\d+\b/g)].map((match) => Number(match[1]));
    let index = ids.at(-1);
    if (index === undefined) {
      const at = this.waiting.findIndex((conversation) => promptText.includes(conversation.prompt));
      assert.notEqual(at, -1, `no conversation opens this prompt: ${promptText.slice(0, 300)}`);
      index = this.waiting.splice(at, 1)[0].index;
    }
    const step = this.steps.get(index) ?? 0;
    this.steps.set(index, step + 1);
    const scripted = this.byIndex.get(index).script[step] ?? { text: '(the script has ended)' };
    return {
      text: scripted.text,
      calls: (scripted.calls ?? []).map((call, n) => ({ toolCallId: `sv${index}-${step}-${n}`, toolName: call.toolName, input: call.input })),
    };
  }
}

/** What one run holds: its findings and its ledger's report. */
const resultOf = (run) => ({ findings: run.findings, report: run.ledger.report() });
const sorted = (results) => results.map((result) => JSON.stringify(result)).sort();

/**
 * Registers the server cases for one framework. `createGuard` is its
 * guard's factory; `agentFor(guard, router)` builds the framework's agent
 * once, with the router as its model and the guard in its loop, and returns
 * `converse(conversation, options)`, which plays one conversation to its
 * end (streaming when `conversation.stream`; `options.thread` names it where
 * the framework has threads).
 */
export function serverCases({ createGuard, agentFor, threads = false }) {
  /** What a guard of its own gives each conversation. */
  async function alone(conversation) {
    const guard = createGuard({ argumentsFrom: SERVER.argumentsFrom });
    const converse = agentFor(guard, new Router([conversation]));
    await converse(conversation);
    return resultOf(guard);
  }

  async function together({ thread } = {}) {
    const heard = new Map();
    const errors = [];
    const guard = createGuard({
      argumentsFrom: SERVER.argumentsFrom,
      onFinding: (finding, run) => heard.set(run.id, [...(heard.get(run.id) ?? []), finding]),
      onError: (error) => errors.push(error),
    });
    const converse = agentFor(guard, new Router(CONVERSATIONS));
    await Promise.all(CONVERSATIONS.map((conversation) => converse(conversation, thread ? { thread: `thread-${conversation.index}` } : {})));
    return { guard, heard, errors };
  }

  it('eight conversations at once on one guard: each gets what a guard of its own gives, by run.id', async () => {
    const baselines = await Promise.all(CONVERSATIONS.map(alone));
    assert.ok(baselines.filter((result) => result.findings.length > 0).length >= 5, 'most conversations find something');
    const { guard, heard, errors } = await together();
    assert.deepEqual(errors, []);
    const ids = guard.runIds();
    assert.equal(ids.length, CONVERSATIONS.length);
    const runs = ids.map((id) => guard.run(id));
    assert.deepEqual(sorted(runs.map(resultOf)), sorted(baselines));
    // onFinding heard each finding once, with the run it belongs to.
    for (const run of runs) assert.deepEqual(heard.get(run.id) ?? [], run.findings);
    assert.deepEqual([...heard.keys()].sort(), runs.filter((run) => run.findings.length > 0).map((run) => run.id).sort());
  });

  if (threads) {
    it("with the app's own thread ids: each run is named by its thread", async () => {
      const baselines = await Promise.all(CONVERSATIONS.map(alone));
      const { guard, heard, errors } = await together({ thread: true });
      assert.deepEqual(errors, []);
      assert.deepEqual(guard.runIds().sort(), CONVERSATIONS.map((conversation) => `thread-${conversation.index}`).sort());
      const runs = guard.runIds().map((id) => guard.run(id));
      assert.deepEqual(sorted(runs.map(resultOf)), sorted(baselines));
      for (const run of runs) assert.deepEqual(heard.get(run.id) ?? [], run.findings);
    });
  }

  it('three conversations in a row that open alike stay apart', async () => {
    // The triage script three times, each conversation's call ids its own.
    const three = [0, 1, 2].map((n) => ({ ...CONVERSATIONS[0], index: 100 + n, stream: n === 1 }));
    const baselines = await Promise.all(three.map(alone));
    assert.ok(baselines.every((baseline) => baseline.findings.length === 1));
    const heard = [];
    const errors = [];
    const guard = createGuard({ argumentsFrom: SERVER.argumentsFrom, onFinding: (finding, run) => heard.push({ finding, id: run.id }), onError: (error) => errors.push(error) });
    const converse = agentFor(guard, new Router(three));
    const ids = [];
    for (const conversation of three) {
      await converse(conversation);
      ids.push(guard.runIds().at(-1));
    }
    assert.deepEqual(errors, []);
    assert.equal(new Set(ids).size, 3);
    assert.deepEqual(ids.map((id) => resultOf(guard.run(id))), baselines);
    assert.deepEqual(heard.map((entry) => entry.id), ids);
    assert.ok(heard.every((entry) => entry.finding.kind === 'empty-lookup'));
  });
}
