// The differential: answerValuesOf and normalizeValue against what
// agentfootprint's own extractor and normalizer answered, on the random
// answers and tokens scripts/gen-claim-differential.mjs built from its SAN
// fixtures' vocabulary. No disagreement is allowed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { answerValuesOf, normalizeValue } from 'seamguard';
import { optionsOf } from '../support/claim-options.mjs';

const { answers, tokens } = JSON.parse(readFileSync(new URL('../fixtures/claim-differential.json', import.meta.url), 'utf8'));

describe('agentfootprint\'s extractor, differentially', () => {
  it('covers what it claims to: thousands of answers, every shape, glued tokens', () => {
    assert.ok(answers.length >= 2000 && tokens.length >= 1000);
    const shapes = new Set(answers.flatMap((a) => a.values.map((v) => v.shape)));
    for (const shape of ['number', 'identifier', 'figure', 'ticket', 'hex', 'wwn', 'word']) assert.ok(shapes.has(shape), shape);
    assert.ok(answers.some((a) => a.values.some((v) => v.token !== undefined)));
  });

  it('answerValuesOf agrees on every answer', () => {
    const disagreements = [];
    for (const { answer, options, values } of answers) {
      const got = answerValuesOf(answer, optionsOf(options));
      if (JSON.stringify(got) !== JSON.stringify(values)) disagreements.push({ answer, options, got, values });
    }
    assert.deepEqual(disagreements.slice(0, 3), []);
  });

  it('normalizeValue agrees on every token', () => {
    const disagreements = tokens.filter(({ raw, normalized }) => normalizeValue(raw) !== normalized);
    assert.deepEqual(disagreements.slice(0, 5), []);
  });
});
