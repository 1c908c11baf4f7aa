// One worker of package/threads.test.mjs: loads the addon in its own
// thread and runs filters and checks whose every input carries this
// worker's tag, checking every answer, so that any state shared by mistake
// between threads shows up as a wrong answer here. Reports progress every
// `report` rounds.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const { ScaffoldingFilter, emptyLookupOf, readLookupResult } = createRequire(import.meta.url)('seamguard');

const { id, rounds, report } = workerData;
const tag = `w${id}`;
const markers = ['<|tool_call|>', '<|tool_calls|>', `<|tool_call_start|>[${tag}(x='<|tool_')]<|tool_call_end|>`];

function expectEqual(actual, expected, what) {
  if (actual !== expected) throw new Error(`${tag}: ${what}: ${JSON.stringify(actual)} !== ${JSON.stringify(expected)}`);
}

function filterRound(round) {
  const filter = new ScaffoldingFilter();
  let text = '';
  let content = '';
  for (let i = 0; i < 20; i++) {
    const piece = `${tag}:${round}:${i} `;
    content += piece;
    text += piece + markers[(round + i) % markers.length];
  }
  let out = '';
  const size = 1 + (round % 13);
  for (let at = 0; at < text.length; at += size) out += filter.feed(text.slice(at, at + size));
  out += filter.flush();
  expectEqual(out, content, `filter output, round ${round}`);
  expectEqual(filter.strippedSpans.length, 20, `spans, round ${round}`);
  expectEqual(out.length + filter.strippedChars, text.length, `conservation, round ${round}`);
}

function checkRound(round) {
  const value = `host-${tag}-${round}`;
  const call = {
    toolName: `lookup-${tag}`,
    toolCallId: `call-${tag}-${round}`,
    args: { miss: `absent-${tag}`, nested: [{ host: ` ${value} ` }] },
    argumentsFrom: [`inventory-${tag}`],
    reading: readLookupResult([], round % 2 === 0),
  };
  const produced = [
    { toolName: `other-${tag}`, text: value },
    { toolName: `inventory-${tag}`, text: `devices: ${value.toUpperCase()} (${tag})` },
  ];
  const encounter = emptyLookupOf(call, produced, round);
  expectEqual(encounter.disposition, 'checked-fail', `disposition, round ${round}`);
  expectEqual(encounter.findings.length, 1, `findings, round ${round}`);
  const [finding] = encounter.findings;
  expectEqual(finding.predicate, 'nested.0.host', `predicate, round ${round}`);
  expectEqual(finding.subjects[0].id, `lookup-${tag}`, `consumer, round ${round}`);
  expectEqual(finding.subjects[1].id, `inventory-${tag}`, `producer, round ${round}`);
  expectEqual(finding.witnesses[0].value, ` ${value} `, `chosen value, round ${round}`);
  expectEqual(finding.epoch, round, `epoch, round ${round}`);
  expectEqual(finding.message.includes(`call-${tag}-${round}`), true, `message, round ${round}`);
}

for (let round = 0; round < rounds; round++) {
  filterRound(round);
  checkRound(round);
  if (round % report === 0) parentPort.postMessage({ id, round });
}
parentPort.postMessage({ id, done: rounds });
