// The package entry exports exactly the generated binding's names, each
// visible to an ESM named import (Node's CommonJS lexer must see them), and
// none of the native helpers behind the JavaScript layer.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createRequire } from 'node:module';
import * as esm from 'seamguard';
import {
  __napiBindingTarget, AssertionStratum, ContextErrorKind, Disposition, EMPTY_LOOKUP_CEILING, emptyLookupOf,
  IntegritySeam, OpenSpanPolicy, ProducedCorpus, readLookupResult, SCAFFOLD_PATTERNS, SCAFFOLD_PRESETS,
  ScaffoldingFilter, StripReason,
} from 'seamguard';

const require = createRequire(import.meta.url);
const generatedNames = [...readFileSync(new URL('../index.js', import.meta.url), 'utf8').matchAll(/^module\.exports\.(\w+) =/gm)]
  .map((match) => match[1]);

test('the ESM named exports are the generated binding\'s, no more, no fewer', () => {
  const named = Object.keys(esm).filter((name) => name !== 'default').sort();
  assert.deepEqual(named, [...new Set(generatedNames)].sort());
  for (const hidden of ['emptyLookupJoins', 'corpusJoins', 'corpusPush', 'emptyLookupProse', 'filterLink', 'filterFeed', 'groundCacheBound']) {
    assert.equal(hidden in esm, false, hidden);
    assert.equal(hidden in require('seamguard'), false, hidden);
  }
});

test('every name the typings declare as a value is exported', () => {
  const typings = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8');
  const declared = [...typings.matchAll(/^export declare (?:const|function|class) (\w+)/gm)].map((match) => match[1]);
  assert.ok(declared.length >= 6);
  for (const name of declared) assert.notEqual(esm[name], undefined, name);
});

test('the named imports are the CommonJS exports', () => {
  const cjs = require('seamguard');
  const imported = {
    __napiBindingTarget, AssertionStratum, ContextErrorKind, Disposition, EMPTY_LOOKUP_CEILING, emptyLookupOf,
    IntegritySeam, OpenSpanPolicy, ProducedCorpus, readLookupResult, SCAFFOLD_PATTERNS, SCAFFOLD_PRESETS,
    ScaffoldingFilter, StripReason,
  };
  assert.deepEqual(Object.keys(imported).sort(), Object.keys(cjs).sort());
  for (const [name, value] of Object.entries(imported)) assert.equal(value, cjs[name], name);
  assert.equal(__napiBindingTarget, 'native');
});
