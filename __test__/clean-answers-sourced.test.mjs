// Real answers that must pass untouched: fixtures/clean-answers-sourced.json
// holds texts copied from public sources (Maven plugin descriptors, PHPUnit
// and JasperReports XML with <parameter>, DocBook and the PHP manual with
// <function>, BPEL with <invoke name=…>, API payload examples with
// tool_calls, docs that discuss tool-call formats, JSON cut off by a token
// limit), each with its source.
//
// The default filter must leave every one unchanged in every chunking, and
// so must the union of every preset, but for the cases listed below, each
// with its reason (and each must really still be changed, so the list
// cannot outlive a fix).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ScaffoldingFilter, SCAFFOLD_PRESETS } from 'seamguard';
import { chunkings } from './helpers.mjs';

const { cases } = JSON.parse(readFileSync(new URL('./fixtures/clean-answers-sourced.json', import.meta.url), 'utf8'));
const UNION = Object.values(SCAFFOLD_PRESETS).flat();

const QUOTED = 'documentation that quotes raw markers as they stand: in a stream a quoted marker is the marker, so with '
  + 'presets armed it is stripped (the README says so)';
// Cases the union of every preset still changes, and why.
const UNION_CHANGES = {
  'hermes-readme-function-calling-prompt-format': QUOTED,
  'ollama-template-docs-mistral-tools': QUOTED,
  'vllm-docs-xlam-parser-formats': QUOTED,
  'vllm-docs-olmo3-function-calls-tags': QUOTED,
  'llama31-prompt-format-builtin-tool-calling': QUOTED,
};

function filtered(patterns, chunks, openSpanAtEnd) {
  const filter = new ScaffoldingFilter(patterns === undefined ? undefined : { patterns, openSpanAtEnd });
  const out = chunks.map((chunk) => filter.feed(chunk)).join('') + filter.flush();
  return { out, spans: filter.strippedSpans };
}

describe('sourced clean answers pass unchanged under the default filter', () => {
  for (const [index, { id, kind, text }] of cases.entries()) {
    it(`${id} (${kind})`, () => {
      for (const chunks of chunkings(text, 9000 + index, 20)) {
        const { out, spans } = filtered(undefined, chunks);
        assert.deepEqual(spans, [], `${chunks.length} chunks`);
        assert.equal(out, text, `${chunks.length} chunks`);
      }
    });
  }
});

describe('sourced clean answers pass unchanged under every preset at once, either openSpanAtEnd', () => {
  for (const [index, { id, kind, text }] of cases.entries()) {
    it(`${id} (${kind})`, { todo: UNION_CHANGES[id] }, () => {
      for (const chunks of chunkings(text, 9500 + index, 12)) {
        for (const openSpanAtEnd of ['emit', 'drop']) {
          const { out, spans } = filtered(UNION, chunks, openSpanAtEnd);
          assert.deepEqual(spans, [], `${chunks.length} chunks, ${openSpanAtEnd}`);
          assert.equal(out, text, `${chunks.length} chunks, ${openSpanAtEnd}`);
        }
      }
    });
  }

  it('lists as still changed only cases the union really changes', () => {
    const ids = new Set(cases.map((c) => c.id));
    for (const id of Object.keys(UNION_CHANGES)) {
      assert.ok(ids.has(id), id);
      const { text } = cases.find((c) => c.id === id);
      assert.notEqual(filtered(UNION, [text]).out, text, `${id} passes now: take it off the list`);
    }
  });

  it('has every kind, each case with a source', () => {
    const kinds = new Set(cases.map((c) => c.kind));
    for (const kind of ['xml-parameter', 'xml-function', 'xml-invoke', 'api-tool-calls', 'docs-formats', 'cut-json']) {
      assert.ok(kinds.has(kind), kind);
    }
    for (const c of cases) assert.match(c.source, /^[\w.-]+\/[\w.-]+(:|#)/, c.id);
    assert.equal(new Set(cases.map((c) => c.id)).size, cases.length);
  });
});
