// answerValuesOf and normalizeValue: agentfootprint's extractor and
// normalizer tests, transcribed as data in __test__/fixtures/claim-values.json
// (each case names its test), then JavaScript's string semantics at the odd
// code units, the options' errors, and many answers read at once.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { answerValuesOf, normalizeValue } from 'seamguard';
import { optionsOf } from '../support/claim-options.mjs';

const { cases } = JSON.parse(readFileSync(new URL('../fixtures/claim-values.json', import.meta.url), 'utf8'));

describe('agentfootprint\'s tests, as data', () => {
  it('has the cases it was written with', () => {
    assert.ok(cases.length >= 80, `${cases.length} cases`);
    assert.ok(cases.every((c) => typeof c.from === 'string' && c.from.length > 0));
  });
  for (const c of cases) {
    it(c.from, () => {
      if ('normalizeValue' in c) assert.equal(normalizeValue(c.normalizeValue), c.expected);
      else assert.deepEqual(answerValuesOf(c.answerValuesOf, optionsOf(c.options)), c.expected);
    });
  }

  it('the correct SAN answers hold 32 values in all, as the false-positive test pins', () => {
    const total = cases
      .filter((c) => c.from.startsWith('sanEvidence.ts CORRECT_ANSWERS'))
      .reduce((sum, c) => sum + answerValuesOf(c.answerValuesOf).length, 0);
    assert.equal(total, 32);
  });
});

describe('JavaScript semantics at the odd code units', () => {
  it('normalizeValue lowers and trims as toLowerCase and trim do', () => {
    for (const raw of ['  \u00a0Host-7\ufeff ', '\u0085X9', 'İ9', 'ẞ-12', '\u2028fc1/3\u2029', 'Σ1Σ', '\u212a12']) {
      const expected = raw.toLowerCase().trim();
      const core = normalizeValue(raw);
      assert.ok(expected.includes(core) || core === '', `${JSON.stringify(raw)}: ${JSON.stringify(core)}`);
    }
    assert.equal(normalizeValue('  \u00a0Host-7\ufeff '), 'host-7');
    assert.equal(normalizeValue('\u0085X9'), '\u0085x9', 'U+0085 is not whitespace to trim');
    assert.equal(normalizeValue('İ9'), 'i\u03079');
  });

  it('only ASCII digits make a number, and a lone surrogate is kept', () => {
    assert.equal(normalizeValue('٤١,٢٠٠'), '٤١,٢٠٠');
    assert.equal(normalizeValue('４１２００'), '４１２００');
    assert.equal(normalizeValue('\ud800A1'), '\ud800a1');
    assert.equal(normalizeValue('0.0000001'), '1e-7', 'as String(Number(v)) spells it');
    assert.equal(normalizeValue('9007199254740993'), '9007199254740993', 'past 15 digits the digits stay');
  });

  it('non-ASCII text separates tokens: spaces inside a number split it', () => {
    assert.deepEqual(answerValuesOf('41\u00a0200 and 41\u2009200 and ٤١٢٠٠'), []);
    assert.deepEqual(answerValuesOf('\ud83d\ude00fc1/3\ud800x41,200\udfff'), [
      { value: 'fc1/3', shape: 'identifier' },
      { value: 'x41,200', shape: 'identifier' },
    ]);
  });

  it('figures read JavaScript whitespace between a number and its unit, one unit of it', () => {
    const values = (text) => answerValuesOf(text, { figures: true }).map((v) => v.value);
    assert.deepEqual(values('5\u00a0tb, 6\u2009ms, 7\u0085ms, 8  ms'), ['5', '6']);
    assert.deepEqual(values('9 \u212aB'), [], 'the Kelvin sign is not a k to a RegExp without u');
  });

  it('a user pattern sees the normalized token, whole', () => {
    const shapes = [{ name: 'host', match: /ESXI-[a-z]+/i }];
    assert.deepEqual(answerValuesOf('On ESXI-alpha and xESXI-beta.', { shapes }), [{ value: 'esxi-alpha', shape: 'host' }]);
    assert.deepEqual(answerValuesOf('ab', { shapes: [{ name: 'alt', match: /a|ab/ }] }), [{ value: 'ab', shape: 'alt' }]);
    const sticky = /[a-z]+\d/gy;
    sticky.lastIndex = 3;
    assert.equal(answerValuesOf('abc1 def2', { shapes: [{ name: 's', match: sticky }] }).length, 2);
  });
});

describe('bad input names the argument', () => {
  const cases = [
    [() => normalizeValue(3), TypeError, /^normalizeValue: token must be a string \(got number\)$/],
    [() => normalizeValue(), TypeError, /^normalizeValue: token must be a string \(got undefined\)$/],
    [() => answerValuesOf(null), TypeError, /^answerValuesOf: answer must be a string \(got null\)$/],
    [() => answerValuesOf('x', null), TypeError, /^answerValuesOf: options must be an object \(got null\)$/],
    [() => answerValuesOf('x', 'all'), TypeError, /^answerValuesOf: options must be an object/],
    [() => answerValuesOf('x', { exempt: 'a' }), TypeError, /^answerValuesOf: options\.exempt must be an array/],
    [() => answerValuesOf('x', { exempt: ['a', 3] }), TypeError, /^answerValuesOf: options\.exempt\[1\] must be a string or a RegExp \(got number\)$/],
    [() => answerValuesOf('x', { exempt: [/(?<=a)b/] }), RangeError, /^answerValuesOf: options\.exempt\[0\] is a RegExp this check cannot run \(.*look-around/],
    [() => answerValuesOf('x', { shapes: {} }), TypeError, /^answerValuesOf: options\.shapes must be an array/],
    [() => answerValuesOf('x', { shapes: [null] }), TypeError, /^answerValuesOf: options\.shapes\[0\] must be a \{ name, match \} object/],
    [() => answerValuesOf('x', { shapes: [{ match: /a/ }] }), TypeError, /^answerValuesOf: options\.shapes\[0\]\.name must be a string \(got undefined\)$/],
    [() => answerValuesOf('x', { shapes: [{ name: '  ', match: /a/ }] }), RangeError, /^answerValuesOf: options\.shapes\[0\]\.name must be a non-empty name/],
    [() => answerValuesOf('x', { shapes: [{ name: 'a', match: /a/ }, { name: ' a', match: /b/ }] }), RangeError, /^answerValuesOf: options\.shapes\[1\]\.name repeats the name 'a'/],
    [() => answerValuesOf('x', { shapes: [{ name: 'a', match: 'a+' }] }), TypeError, /^answerValuesOf: options\.shapes\[0\]\.match must be a RegExp \(got string\)$/],
    [() => answerValuesOf('x', { shapes: [{ name: 'a', match: /(a)\1/ }] }), RangeError, /^answerValuesOf: options\.shapes\[0\]\.match is a RegExp this check cannot run \(.*backreference/i],
    [() => answerValuesOf('x', { minDigits: '4' }), TypeError, /^answerValuesOf: options\.minDigits must be a number \(got string\)$/],
    [() => answerValuesOf('x', { minDigits: 0 }), RangeError, /^answerValuesOf: options\.minDigits must be a whole number of at least 1 \(got 0\)$/],
    [() => answerValuesOf('x', { minDigits: 2.5 }), RangeError, /minDigits must be a whole number/],
    [() => answerValuesOf('x', { minDigits: Number.NaN }), RangeError, /minDigits must be a whole number/],
    [() => answerValuesOf('x', { figures: 'yes' }), TypeError, /^answerValuesOf: options\.figures must be a boolean \(got string\)$/],
  ];
  for (const [call, type, message] of cases) {
    it(String(message), () => {
      assert.throws(call, (error) => {
        assert.ok(error instanceof type, `${error.name}: ${error.message}`);
        assert.match(error.message, message);
        return true;
      });
    });
  }

  it('an options object with none of the fields is the defaults; unknown fields are ignored', () => {
    const answer = 'fc1/3 at 41,200 and 53.2%';
    assert.deepEqual(answerValuesOf(answer, {}), answerValuesOf(answer));
    assert.deepEqual(answerValuesOf(answer, undefined), answerValuesOf(answer));
    assert.deepEqual(answerValuesOf(answer, { posture: 'guard' }), answerValuesOf(answer));
  });
});

describe('many answers at once', () => {
  const answers = cases.filter((c) => 'answerValuesOf' in c);

  it('interleaved calls with different options answer as each does alone', async () => {
    const alone = answers.map((c) => answerValuesOf(c.answerValuesOf, optionsOf(c.options)));
    const together = await Promise.all(answers.map(async (c, i) => {
      await new Promise((resolve) => setImmediate(resolve));
      const mine = answerValuesOf(c.answerValuesOf, optionsOf(c.options));
      // Another conversation's options in between must not leak into mine.
      answerValuesOf(answers[(i + 1) % answers.length].answerValuesOf, { minDigits: 1, figures: true, shapes: [{ name: 'w', match: /\w+/ }] });
      return mine;
    }));
    assert.deepEqual(together, alone);
  });

  it('four threads reading at once agree with this one', async () => {
    const source = `
      const { parentPort, workerData } = require('node:worker_threads');
      const { answerValuesOf } = require(${JSON.stringify(new URL('../../index.js', import.meta.url).pathname)});
      parentPort.postMessage(workerData.map((a) => answerValuesOf(a, { figures: true })));`;
    const texts = answers.map((c) => c.answerValuesOf);
    const expected = texts.map((a) => answerValuesOf(a, { figures: true }));
    const runs = Array.from({ length: 4 }, () => new Promise((resolve, reject) => {
      const worker = new Worker(source, { eval: true, workerData: texts });
      worker.once('message', resolve);
      worker.once('error', reject);
    }));
    for (const got of await Promise.all(runs)) assert.deepEqual(got, expected);
  });
});
