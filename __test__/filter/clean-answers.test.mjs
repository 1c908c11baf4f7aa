// Answers that must pass through untouched: fixtures/clean-answers.json
// holds answers that look like markup without being any (JSON in prose and
// fences, tool definitions, HTML and JSX, generics, shell, markdown,
// templates, math with < and >, scripts of many languages, answers ending
// in an unfinished <, [ or {). Each goes through the union of every preset
// (which holds a JSON-call pattern), fed whole, a unit at a time and in
// random cuts, and must come out unchanged with nothing stripped, under
// either openSpanAtEnd (an answer cut off inside JSON is still its own).
//
// Each must also pass tool-aware detection (`new ScaffoldingFilter({ tools
// })`) unchanged, offered a realistic tool list, and offered too every name
// it puts where a name goes without calling it (a JSON "name", a tool
// definition's name, a called identifier).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ScaffoldingFilter, SCAFFOLD_PRESETS } from 'seamguard';
import { chunkings } from '../support/helpers.mjs';

const { cases } = JSON.parse(readFileSync(new URL('../fixtures/clean-answers.json', import.meta.url), 'utf8'));
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

const REALISTIC = ['get_weather', 'search', 'read_file', 'run_shell'];

/** The names a text puts where a tool's name could go. */
function mentioned(text) {
  const names = new Set();
  const patterns = [
    /<(?:name|function|parameter|methodname|command)>([^<\n]+)<\//g,
    /\b(?:name|tool_name|toolName)\s*=\s*(?:"([^"\n]+)"|'([^'\n]+)')/g,
    /["'](?:name|tool_name|tool|function|toolName)["']\s*:\s*(?:"([^"\n]+)"|'([^'\n]+)')/g,
    /\b([A-Za-z_][\w.]*)\s*\(/g,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) names.add(match.slice(1).find((group) => group !== undefined).trim());
  }
  return [...names].filter((name) => name !== '');
}

describe('clean answers pass unchanged under tool-aware detection, either openSpanAtEnd', () => {
  for (const [index, { id, kind, text }] of cases.entries()) {
    const named = mentioned(text);
    it(`${id} (${kind}; names offered: ${named.length})`, () => {
      for (const tools of [REALISTIC, [...new Set([...REALISTIC, ...named])]]) {
        for (const chunks of chunkings(text, 7500 + index, 40)) {
          for (const openSpanAtEnd of ['emit', 'drop']) {
            const filter = new ScaffoldingFilter({ tools, openSpanAtEnd });
            const out = chunks.map((chunk) => filter.feed(chunk)).join('') + filter.flush();
            const where = `${tools.length} tools, ${chunks.length} chunks, ${openSpanAtEnd}`;
            assert.deepEqual(filter.strippedSpans, [], where);
            assert.equal(out, text, where);
          }
        }
      }
    });
  }
});
