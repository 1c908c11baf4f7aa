// The boundary between JavaScript and Rust keeps no state of its own: the
// defects an earlier boundary had, each held through the package's public
// entry. Two copies of the package's JavaScript over one addon answer by
// the rules; a filter whose onStrip refers to the filter is collected; a
// large call leaves the heap where it was; the loader exports only what
// the typings declare (see exports.test.mjs); and no thread is started
// (see checks/corpus.test.mjs).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { modelEmptyLookup, joinsOf } from '../support/model.mjs';
import { rng } from '../support/helpers.mjs';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const require = createRequire(import.meta.url);

/** A second evaluation of the package's JavaScript, as Jest or Vitest make one per test file. */
function freshCopy() {
  const entry = require.resolve('seamguard');
  for (const file of Object.keys(require.cache)) {
    if (file.startsWith(entry.replace(/lib\/index\.cjs$/, '')) && !file.endsWith('.node')) delete require.cache[file];
  }
  return require('seamguard');
}

const settle = async () => {
  for (let i = 0; i < 6; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe('the boundary keeps no state between calls', () => {
  it('two copies of the package over one addon each answer by the rules', () => {
    const first = require('seamguard');
    const second = freshCopy();
    assert.notEqual(first.ScaffoldingFilter, second.ScaffoldingFilter, 'the JavaScript was evaluated again');
    const r = rng(1111);
    const tools = ['inventory', 'cmdb', 'ticket', 'other'];
    const words = ['host-a', 'HOST-B', 'abcd-9999', 'ŁBCD-9999', 'port 7', 'x', '20:00:00:25:b5:aa', 'zone_z'];
    const text = () => Array.from({ length: 1 + r.below(6) }, () => r.pick(words)).join(r.pick([' ', ',', '']));
    for (let i = 0; i < 400; i++) {
      const produced = Array.from({ length: r.below(5) }, () => ({ toolName: r.pick(tools), text: r.below(3) ? text() : text().repeat(40) }));
      const call = {
        toolName: 'lookup', toolCallId: `c${i}`,
        args: { a: r.pick(words), b: [r.pick(words), { c: r.pick(words) }] },
        argumentsFrom: [r.pick(tools), r.pick(tools)].slice(0, 1 + r.below(2)),
        reading: first.readLookupResult([], false),
      };
      const expected = modelEmptyLookup(call, produced);
      const copy = i % 2 ? first : second;
      assert.deepEqual(joinsOf(copy.emptyLookupOf(call, produced, i)), expected, `call ${i}`);
      const corpus = new (i % 3 ? first : second).ProducedCorpus();
      for (const result of produced) corpus.push(result);
      assert.deepEqual(joinsOf(corpus.emptyLookupOf(call, i)), expected, `corpus call ${i}`);
    }
    // Filters from both copies, fed alternately, keep their own state.
    const a = new first.ScaffoldingFilter();
    const b = new second.ScaffoldingFilter();
    assert.equal(a.feed('x <|tool_'), 'x ');
    assert.equal(b.feed('y'), 'y');
    assert.equal(a.feed('call|> z'), ' z');
    assert.equal(b.flush() + a.flush(), '');
  });

  it('collects filters whose onStrip callback refers to the filter', async () => {
    const { ScaffoldingFilter } = require('seamguard');
    let collected = 0;
    const registry = new FinalizationRegistry(() => collected++);
    let events = 0;
    for (let i = 0; i < 2000; i++) {
      const filter = new ScaffoldingFilter({ onStrip: () => { events += filter.strippedSpans.length; } });
      filter.feed('a<|tool_call|>b');
      registry.register(filter, i);
    }
    assert.equal(events, 2000);
    await settle();
    // The registry is read here so that it outlives the filters: a registry
    // nothing refers to any more is collected with them (Node 24 does so),
    // and then no callback runs at all.
    assert.ok(registry instanceof FinalizationRegistry);
    assert.ok(collected >= 1990, `${collected} of 2000 collected`);
  });

  it('keeps nothing of a large call once the caller lets go', async () => {
    const { emptyLookupOf, ProducedCorpus, readLookupResult } = require('seamguard');
    const reading = readLookupResult([], false);
    // The results live only inside this function: once it returns, nothing
    // but the package could still hold them.
    const judge = () => {
      const produced = Array.from({ length: 50 }, (_, i) => ({
        toolName: i % 2 ? 'inventory' : 'cmdb',
        text: Array.from({ length: 5000 }, (_, k) => `{"wwpn":"20:00:00:25:B5:${i}:${k}"}`).join('\n'),
      }));
      const call = {
        toolName: 'lookup', toolCallId: 'c', args: { wwpn: '20:00:00:25:b5:49:4999', none: 'c0:ff:ee:missing' },
        argumentsFrom: ['inventory', 'cmdb'], reading,
      };
      const corpus = new ProducedCorpus();
      for (const result of produced) corpus.push(result);
      return [emptyLookupOf(call, produced, 0), corpus.emptyLookupOf(call, 0)].map((e) => e.findings.map((f) => f.predicate));
    };
    await settle();
    const before = process.memoryUsage();
    assert.deepEqual(judge(), [['wwpn'], ['wwpn']]);
    await settle();
    const after = process.memoryUsage();
    // The texts alone are about 10 MiB of heap (one byte a unit).
    const grew = (what) => (after[what] - before[what]) / 2 ** 20;
    assert.ok(grew('heapUsed') < 1, `heap grew by ${grew('heapUsed').toFixed(2)} MiB`);
    assert.ok(grew('external') < 1, `external memory grew by ${grew('external').toFixed(2)} MiB`);
  });
});
