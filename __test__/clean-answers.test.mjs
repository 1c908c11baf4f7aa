// Answers that must pass through untouched: fixtures/clean-answers.json
// holds answers that look like markup without being any (JSON in prose and
// fences, tool definitions, HTML and JSX, generics, shell, markdown,
// templates, math with < and >, scripts of many languages, answers ending
// in an unfinished <, [ or {). Each goes through the union of every preset
// (which holds a JSON-call pattern), fed whole, a unit at a time and in
// random cuts, and must come out unchanged with nothing stripped, under
// either openSpanAtEnd (an answer cut off inside JSON is still its own).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ScaffoldingFilter, SCAFFOLD_PRESETS } from 'seamguard';
import { chunkings } from './helpers.mjs';

const { cases } = JSON.parse(readFileSync(new URL('./fixtures/clean-answers.json', import.meta.url), 'utf8'));
const UNION = Object.values(SCAFFOLD_PRESETS).flat();


describe('clean answers pass unchanged under every preset at once', () => {
  for (const [index, { id, kind, text }] of cases.entries()) {
    it(`${id} (${kind})`, () => {
      for (const chunks of chunkings(text, 7000 + index, 40)) {
        const filter = new ScaffoldingFilter({ patterns: UNION, openSpanAtEnd: chunks.length % 2 ? 'drop' : 'emit' });
        const out = chunks.map((chunk) => filter.feed(chunk)).join('') + filter.flush();
        assert.deepEqual(filter.strippedSpans, [], `${chunks.length} chunks`);
        assert.equal(out, text, `${chunks.length} chunks`);
      }
    });
  }

  it('has every kind the issue names', () => {
    const kinds = new Set(cases.map((c) => c.kind));
    for (const kind of ['json', 'markup', 'generics', 'shell', 'markdown', 'math', 'template', 'unicode', 'tail']) {
      assert.ok(kinds.has(kind), kind);
    }
  });
});
