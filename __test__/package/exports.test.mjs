// The package entry exports exactly the names its typings declare as
// values (the generated binding's, and the few the header declares for the
// JavaScript parts), each visible to an ESM named import (Node's CommonJS
// lexer must see them), and the binding itself exports nothing its typings
// do not declare but the functions the JavaScript ScaffoldingFilter is
// built on, which the package does not export.
//
// One exception, loader metadata: the generated loader (index.js) stamps
// `__napiBindingTarget` on the binding. napi-rs also declares it in
// index.d.ts; scripts/finish-binding.mjs takes that declaration out after
// every build, so the public typings carry no loader internals. The entry
// (lib/index.cjs) still passes the value on at run time, undeclared.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createRequire } from 'node:module';
import { inChild } from '../support/helpers.mjs';
import * as esm from 'seamguard';
import {
  __napiBindingTarget, AssertionStratum, ContextErrorKind, Disposition, EMPTY_LOOKUP_CEILING, emptyLookupOf,
  IntegritySeam, OpenSpanPolicy, ProducedCorpus, readLookupResult, SCAFFOLD_PATTERNS, SCAFFOLD_PRESETS, SCAFFOLD_SPECIAL_TOKENS,
  ScaffoldingFilter, ScaffoldRegistry, StripReason, RunCorpus, RunRole, unsupportedArgumentsOf, declaredEnumValuesOf,
  danglingReferencesOf, dispositionLedger, CheckerDeadError, contextErrorIdentity, dedupeContextErrors, beginIntegrityRun,
  SkippedToolReason, usableTools, FilterPlan, argumentsMisfit, answerValuesOf, normalizeValue,
} from 'seamguard';

const require = createRequire(import.meta.url);
/** What the generated loader stamps on the binding: which artifact it loaded. */
const LOADER_METADATA = '__napiBindingTarget';
const generatedNames = [...readFileSync(new URL('../../index.js', import.meta.url), 'utf8').matchAll(/^module\.exports\.(\w+) =/gm)]
  .map((match) => match[1]);

/** The names index.d.ts declares as values, in its header and in what napi generated. */
const declaredValues = [...readFileSync(new URL('../../index.d.ts', import.meta.url), 'utf8')
  .matchAll(/^export declare (?:const|function|class) (\w+)/gm)].map((match) => match[1]);

test('the ESM named exports are the declared values and the generated binding\'s, no more, no fewer', () => {
  // Node 23 and later also name the whole CommonJS exports 'module.exports'.
  const named = Object.keys(esm).filter((name) => name !== 'default' && name !== 'module.exports').sort();
  assert.deepEqual(named, [...new Set([...generatedNames, ...declaredValues])].sort());
  // The loader's metadata is the one export the typings do not declare at
  // all (a string enum is declared as a type of its strings).
  const declaredNames = [...readFileSync(new URL('../../index.d.ts', import.meta.url), 'utf8')
    .matchAll(/^export (?:declare )?(?:const|function|class|type) (\w+)/gm)].map((match) => match[1]);
  assert.deepEqual(named.filter((name) => !declaredNames.includes(name)), [LOADER_METADATA]);
  // The JavaScript parts are few, and each is declared in the header.
  const jsOnly = declaredValues.filter((name) => !generatedNames.includes(name)).sort();
  assert.deepEqual(jsOnly, ['CheckerDeadError', 'FilterPlan', 'ProducedCorpus', 'ScaffoldingFilter', 'beginIntegrityRun', 'contextErrorIdentity',
    'declaredEnumValuesOf', 'dedupeContextErrors', 'dispositionLedger']);
});

test('the loader exports nothing the typings do not declare, and no memory Rust writes', () => {
  const typings = readFileSync(new URL('../../index.d.ts', import.meta.url), 'utf8');
  // A string enum is declared as a type of its strings (agentfootprint's
  // shape), and the loader also carries its values under the same name.
  const declared = new Set([...typings.matchAll(/^export (?:declare )?(?:const|function|class|type) (\w+)/gm)].map((match) => match[1]));
  const loader = require('../../index.js');
  // The undeclared exports: the functions lib/filter/scaffolding-filter.cjs
  // builds ScaffoldingFilter on and the one the guards check their
  // evidence options with (lib/guard/claim.cjs), which neither the typings
  // nor the package entry show, and the loader's metadata, which the
  // typings do not show.
  const INTERNALS = {
    __scaffoldingFilter: ['close', 'compile', 'feed', 'finish', 'idle', 'open', 'openStreams', 'openWith', 'strip', 'strippedChars', 'strippedSpans'],
    __claim: ['checkValueOptions'],
  };
  assert.deepEqual(Object.keys(loader).filter((name) => !declared.has(name)).sort(), [LOADER_METADATA, ...Object.keys(INTERNALS)].sort());
  assert.ok(!typings.includes(LOADER_METADATA));
  for (const [internal, functions] of Object.entries(INTERNALS)) {
    assert.ok(!typings.includes(internal), internal);
    assert.ok(!(internal in require('seamguard')) && !(internal in esm), internal);
    assert.deepEqual(Object.keys(loader[internal]).sort(), functions);
    for (const value of Object.values(loader[internal])) assert.equal(typeof value, 'function');
  }
  assert.ok(Object.keys(loader).length >= 14);
  // Nothing reachable from an export, to a few levels, is a typed array or
  // an ArrayBuffer.
  const seen = new Set();
  const visit = (value, path, depth) => {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value) || depth > 4) return;
    seen.add(value);
    assert.ok(!ArrayBuffer.isView(value) && !(value instanceof ArrayBuffer), path);
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (descriptor && 'value' in descriptor) visit(descriptor.value, `${path}.${String(key)}`, depth + 1);
    }
  };
  for (const [name, value] of Object.entries(loader)) visit(value, name, 0);
  for (const name of Object.keys(esm)) visit(esm[name], name, 0);
});

test('every name the typings declare as a value is exported', () => {
  const typings = readFileSync(new URL('../../index.d.ts', import.meta.url), 'utf8');
  const declared = [...typings.matchAll(/^export declare (?:const|function|class) (\w+)/gm)].map((match) => match[1]);
  assert.ok(declared.length >= 6);
  for (const name of declared) assert.notEqual(esm[name], undefined, name);
});

test('the named imports are the CommonJS exports', () => {
  const cjs = require('seamguard');
  const imported = {
    __napiBindingTarget, AssertionStratum, ContextErrorKind, Disposition, EMPTY_LOOKUP_CEILING, emptyLookupOf,
    IntegritySeam, OpenSpanPolicy, ProducedCorpus, readLookupResult, SCAFFOLD_PATTERNS, SCAFFOLD_PRESETS, SCAFFOLD_SPECIAL_TOKENS,
    ScaffoldingFilter, ScaffoldRegistry, StripReason, RunCorpus, RunRole, unsupportedArgumentsOf, declaredEnumValuesOf,
    danglingReferencesOf, dispositionLedger, CheckerDeadError, contextErrorIdentity, dedupeContextErrors, beginIntegrityRun,
    SkippedToolReason, usableTools, FilterPlan, argumentsMisfit, answerValuesOf, normalizeValue,
  };
  assert.deepEqual(Object.keys(imported).sort(), Object.keys(cjs).sort());
  for (const [name, value] of Object.entries(imported)) assert.equal(value, cjs[name], name);
  assert.equal(__napiBindingTarget, 'native');
});

test('the binary loads many times in one process, beside other native modules', () => {
  // A library loaded with dlopen must not take static TLS: glibc keeps only
  // a little spare, shared by every such library in the process, and an
  // allocator built with initial-exec TLS ran out of it at the third copy.
  const binary = require.resolve('../../index.js').replace(/index\.js$/, '');
  const child = inChild(`
    import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
    import { join } from 'node:path';
    import { tmpdir } from 'node:os';
    const from = ${JSON.stringify(binary)};
    const file = readdirSync(from).find((name) => /^seamguard\..*\.node$/.test(name));
    const dir = mkdtempSync(join(tmpdir(), 'seamguard-copies-'));
    let joins = 0;
    for (let i = 0; i < 8; i++) {
      const copy = join(dir, 'copy' + i + '.node');
      copyFileSync(join(from, file), copy);
      const module = { exports: {} };
      process.dlopen(module, copy);
      const corpus = new module.exports.RunCorpus();
      corpus.push({ toolName: 'p', text: 'host-a '.repeat(200) });
      const reading = module.exports.readLookupResult([], false);
      const call = { toolName: 'q', toolCallId: 'c', args: { v: 'HOST-A' }, argumentsFrom: ['p'], reading };
      joins += corpus.emptyLookupOf(call, 0).findings.length;
    }
    console.log(joins);
  `);
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout.trim(), '8');
});

test('the test hooks are reachable from no package export, only by path from __test__', async () => {
  // Two things exist for the tests alone: crossEveryChunk, which
  // lib/filter/scaffolding-filter.cjs exports to make a filter take every
  // chunk across, and the addon's openStreams(), the count of open native
  // streams, under the loader's `__scaffoldingFilter`. The tests require
  // them by path; a user can reach neither through `seamguard` or a subpath.
  const { crossEveryChunk } = require('../../lib/filter/scaffolding-filter.cjs');
  const { openStreams } = require('../../index.js').__scaffoldingFilter;
  assert.equal(typeof crossEveryChunk, 'function');
  assert.equal(typeof openStreams, 'function');
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const entries = Object.keys(pkg.exports).filter((key) => key !== './package.json');
  // Subpaths are spelled out, no pattern: a `./*` or `./lib/*` entry would
  // open every file of lib/.
  for (const key of entries) assert.ok(!key.includes('*'), key);
  const hooks = new Set([crossEveryChunk, openStreams]);
  const hookNames = ['crossEveryChunk', 'openStreams', '__scaffoldingFilter'];
  for (const key of entries) {
    const specifier = `seamguard${key.slice(1)}`;
    const seen = new Set();
    const visit = (value, path, depth) => {
      if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value) || depth > 6) return;
      seen.add(value);
      assert.ok(!hooks.has(value), path);
      for (const name of Reflect.ownKeys(value)) {
        assert.ok(!hookNames.includes(name), `${path}.${String(name)}`);
        const descriptor = Object.getOwnPropertyDescriptor(value, name);
        if (descriptor && 'value' in descriptor) visit(descriptor.value, `${path}.${String(name)}`, depth + 1);
      }
      visit(Object.getPrototypeOf(value), `${path}.[[Prototype]]`, depth + 1);
    };
    visit(require(specifier), specifier, 0);
    visit(await import(specifier), `import(${specifier})`, 0);
  }
  // The files behind them are not exported by path either.
  for (const internal of ['seamguard/lib/filter/scaffolding-filter.cjs', 'seamguard/lib/native.cjs', 'seamguard/index.js']) {
    assert.throws(() => require(internal), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' }, internal);
  }
});
