// The filter against leaks users reported. fixtures/real-leaks.json holds
// answers as public issue threads showed them (each case names its report,
// owner/repo#number) and the clean text a user should have seen;
// docs/preset-sources.md says where each family's format is defined. Every
// case whose family has a preset must come out clean under that preset,
// fed whole, a unit at a time and in random cuts, with openSpanAtEnd:
// 'drop' (several reports are cut off inside the call).
//
// Each case must also come out clean under the union of every preset
// (`Object.values(SCAFFOLD_PRESETS).flat()`), the "catch everything we
// know" registry.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ScaffoldingFilter, SCAFFOLD_PRESETS } from 'seamguard';
import { chunkings } from './helpers.mjs';

const { cases } = JSON.parse(readFileSync(new URL('./fixtures/real-leaks.json', import.meta.url), 'utf8'));

// Cases the filter cannot clean yet, each with the reason. None today;
// a case that lands here must say why.
const NOT_YET = {};

/** Every preset at once, in `SCAFFOLD_PRESETS` order. */
const UNION = Object.values(SCAFFOLD_PRESETS).flat();


function clean(patterns, chunks) {
  const filter = new ScaffoldingFilter({ patterns, openSpanAtEnd: 'drop' });
  return chunks.map((chunk) => filter.feed(chunk)).join('') + filter.flush();
}

describe('leaks users reported', () => {
  for (const [index, { id, family, source, leaked, clean: expected }] of cases.entries()) {
    const patterns = SCAFFOLD_PRESETS[family];
    const todo = patterns === undefined ? `no ${family} preset yet` : NOT_YET[id];
    it(`${id} (${source})`, { todo }, () => {
      assert.ok(patterns, `a ${family} preset`);
      for (const chunks of chunkings(leaked, 1000 + index)) {
        assert.equal(clean(patterns, chunks), expected, `${chunks.length} chunks`);
        assert.equal(clean(UNION, chunks), expected, `${chunks.length} chunks, every preset`);
      }
    });
  }

  it('lists as not yet only cases that exist', () => {
    const ids = new Set(cases.map((c) => c.id));
    for (const id of Object.keys(NOT_YET)) assert.ok(ids.has(id), id);
  });

  it('covers every family with a preset, and every preset but the default with a report', () => {
    const families = new Set(cases.map((c) => c.family));
    for (const family of families) assert.ok(SCAFFOLD_PRESETS[family], family);
    for (const name of Object.keys(SCAFFOLD_PRESETS)) assert.ok(families.has(name), `${name} has a case`);
  });
});
