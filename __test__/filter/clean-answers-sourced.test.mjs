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
//
// So must tool-aware detection (`new ScaffoldingFilter({ tools })`), offered
// a realistic tool list, and offered too every name the text itself puts
// where a name goes without calling it: a Maven parameter's <name>, a
// BPEL operation, a DocBook <function>, a JSON "name", a called identifier.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ScaffoldingFilter, SCAFFOLD_PRESETS } from 'seamguard';
import { chunkings } from '../support/helpers.mjs';

const { cases } = JSON.parse(readFileSync(new URL('../fixtures/clean-answers-sourced.json', import.meta.url), 'utf8'));
const UNION = Object.values(SCAFFOLD_PRESETS).flat();

const QUOTED = 'documentation that quotes raw markers as they stand: in a stream a quoted marker is the marker, so with '
  + 'presets armed it is stripped (docs/scaffolding-filter.md says so, and why)';
// Cases the union of every preset still changes, and why.
const UNION_CHANGES = {
  'hermes-readme-function-calling-prompt-format': QUOTED,
  'ollama-template-docs-mistral-tools': QUOTED,
  'vllm-docs-xlam-parser-formats': QUOTED,
  'vllm-docs-olmo3-function-calls-tags': QUOTED,
  'llama31-prompt-format-builtin-tool-calling': QUOTED,
  'harmony-format-docs-receiving-tool-calls': QUOTED,
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

// Tool-aware detection. A realistic tool list, then the same with the names
// the text mentions in a name position.
const REALISTIC = ['get_weather', 'search', 'read_file', 'run_shell'];

/** The names a text puts where a tool's name could go. */
function mentioned(text) {
  const names = new Set();
  const patterns = [
    /<(?:name|function|parameter|methodname|refname|command|funcdef)>([^<\n]+)<\//g,
    /\b(?:name|operation|tool_name|toolName)\s*=\s*(?:"([^"\n]+)"|'([^'\n]+)')/g,
    /["'](?:name|tool_name|tool|function|toolName)["']\s*:\s*(?:"([^"\n]+)"|'([^'\n]+)')/g,
    /\b([A-Za-z_][\w.]*)\s*\(/g,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) names.add(match.slice(1).find((group) => group !== undefined).trim());
  }
  return [...names].filter((name) => name !== '');
}

// Names a text genuinely calls: offered, the text is stripped, as a stream
// cannot tell a quoted call from a leaked one, so they are left out of its
// list (and each must really be stripped when offered, checked below).
const CALLED = {
  // A ```json fence holding nothing but a tool_use block that names it: a
  // fenced call, the shape Qwen2.5-Coder and Llama 3.2 leak.
  'anthropic-messages-docstring-tool-use-block': ['get_stock_price'],
};

function toolAware(tools, chunks, openSpanAtEnd) {
  const filter = new ScaffoldingFilter({ tools, openSpanAtEnd });
  const out = chunks.map((chunk) => filter.feed(chunk)).join('') + filter.flush();
  return { out, spans: filter.strippedSpans };
}

describe('sourced clean answers pass unchanged under tool-aware detection, either openSpanAtEnd', () => {
  for (const [index, { id, kind, text }] of cases.entries()) {
    const named = mentioned(text).filter((name) => !CALLED[id]?.includes(name));
    it(`${id} (${kind}; names offered: ${named.length})`, () => {
      for (const tools of [REALISTIC, [...new Set([...REALISTIC, ...named])]]) {
        for (const chunks of chunkings(text, 9700 + index, 16)) {
          for (const openSpanAtEnd of ['emit', 'drop']) {
            const { out, spans } = toolAware(tools, chunks, openSpanAtEnd);
            const where = `${tools.length} tools, ${chunks.length} chunks, ${openSpanAtEnd}`;
            assert.deepEqual(spans, [], where);
            assert.equal(out, text, where);
          }
        }
      }
    });
  }

  it('leaves out only names the text really calls', () => {
    for (const [id, names] of Object.entries(CALLED)) {
      const { text } = cases.find((c) => c.id === id);
      for (const name of names) {
        assert.ok(mentioned(text).includes(name), `${id} mentions ${name}`);
        assert.notEqual(toolAware([name], [text], 'emit').out, text, `${id} is no longer stripped with ${name} offered: take it off the list`);
      }
    }
  });
});
