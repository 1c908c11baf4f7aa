// ScaffoldingFilter.strip(text, options?): a whole text at once, with no
// filter object left behind. It answers what a filter fed the text whole and
// flushed answers, for the default registry and every golden registry, and
// tells onStrip of the same spans.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ScaffoldingFilter, ScaffoldRegistry, SCAFFOLD_PRESETS } from 'seamguard';

const golden = JSON.parse(readFileSync(new URL('../fixtures/scaffolding.json', import.meta.url), 'utf8'));
const registries = JSON.parse(readFileSync(new URL('../fixtures/scaffolding-registries.json', import.meta.url), 'utf8'));
const textOf = (testCase) => testCase.rounds.map((round) => round.chunks.join('')).join('');

function viaFilter(text, options) {
  const filter = new ScaffoldingFilter(options);
  return { text: filter.feed(text) + filter.flush(), spans: filter.strippedSpans };
}

function viaStrip(text, options) {
  const spans = [];
  const out = ScaffoldingFilter.strip(text, { ...options, onStrip: (event) => spans.push(event.span) });
  return { text: out, spans };
}

describe('ScaffoldingFilter.strip', () => {
  it('answers as a filter fed the text whole, for every golden case of the default registry', () => {
    for (const testCase of golden.cases) {
      const text = textOf(testCase);
      assert.deepEqual(viaStrip(text), viaFilter(text), testCase.name);
      assert.equal(ScaffoldingFilter.strip(text), viaFilter(text).text, testCase.name);
    }
  });

  it('and for every golden registry, given as patterns or compiled', () => {
    const byName = new Map(registries.registries.map((registry) => [registry.name, registry.patterns]));
    for (const testCase of registries.cases) {
      const patterns = byName.get(testCase.registry);
      const text = textOf(testCase);
      assert.deepEqual(viaStrip(text, { patterns }), viaFilter(text, { patterns }), testCase.name);
      const compiled = new ScaffoldRegistry(patterns);
      assert.deepEqual(viaStrip(text, { patterns: compiled, openSpanAtEnd: 'drop' }), viaFilter(text, { patterns: compiled, openSpanAtEnd: 'drop' }), testCase.name);
    }
  });

  it('hands back the very string when nothing is stripped', () => {
    const text = `plain answer ${'x'.repeat(1000)} with < and [ and {`;
    assert.equal(ScaffoldingFilter.strip(text), text);
    assert.equal(ScaffoldingFilter.strip(''), '');
    assert.equal(ScaffoldingFilter.strip('a<|tool_call|>b'), 'ab');
  });

  it('calls onStrip once per span, in order, with the reason and pattern, before it returns', () => {
    const events = [];
    const out = ScaffoldingFilter.strip('a<tool_call>{"name":"f"}</tool_call>b</tool_call>c', {
      patterns: SCAFFOLD_PRESETS.hermes,
      onStrip: (event) => events.push(event),
    });
    assert.equal(out, 'abc');
    assert.deepEqual(events, [
      { span: '<tool_call>{"name":"f"}</tool_call>', reason: 'match', pattern: 0 },
      { span: '</tool_call>', reason: 'match', pattern: 1 },
    ]);
  });

  it('refuses what is not a string, and bad options, naming them', () => {
    assert.throws(() => ScaffoldingFilter.strip(42), { name: 'TypeError', message: 'ScaffoldingFilter.strip: text must be a string (got number)' });
    assert.throws(() => ScaffoldingFilter.strip(undefined), /ScaffoldingFilter\.strip: text must be a string \(got undefined\)/);
    assert.throws(() => ScaffoldingFilter.strip('x', { pattern: [] }), /options\.pattern is not an option/);
    assert.throws(() => ScaffoldingFilter.strip('x', { openSpanAtEnd: 'keep' }), /options\.openSpanAtEnd must be 'emit' or 'drop'/);
  });

  it('throws what onStrip throws', () => {
    assert.throws(() => ScaffoldingFilter.strip('a<|tool_call|>b', { onStrip() { throw new RangeError('logger down'); } }), { name: 'RangeError', message: 'logger down' });
  });
});
