// unsupported-argument at the choice seam: unsupportedArgumentsOf and
// declaredEnumValuesOf against their rules (docs/checks.md,
// "unsupported-argument"). The laws of agentfootprint's own unit tests (the
// field case, the fences, the external-ground door and its hygiene) are
// here in our words, with the parity traps the spec adds, and a comparison
// with the plain model in support/check-model.mjs over a few thousand
// random calls.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { rng } from '../support/helpers.mjs';
import { NOWHERE, SELF_REFERENCED, modelChoiceVerdicts, modelDeclaredEnums, verdictsOfAnswer, visibleVerdicts } from '../support/check-model.mjs';

const require = createRequire(import.meta.url);
const { declaredEnumValuesOf, unsupportedArgumentsOf } = require('seamguard');

const SYSTEM = 'You are a fleet triage assistant.';
const TASK = 'What is the backup status for that machine?';
const RENDERED = 'The nightly job bkp-4417-ganymede-tier2 finished at 02:14.';

/** One armed call: backup_status declares that its arguments come from fleet_report. */
function chose(args, extra = {}) {
  return { toolName: 'backup_status', toolCallId: 'call-2', args, argumentsFrom: ['fleet_report'], ...extra };
}

function frame(grounded, assistant = [], ...external) {
  return external.length > 0 ? { grounded, assistant, external: external[0] } : { grounded, assistant };
}

const FIELD = () => frame([SYSTEM, TASK], [RENDERED]);

/** The findings' dot-paths and states, for one call against `corpus`. */
function states(args, corpus, extra) {
  return unsupportedArgumentsOf([chose(args, extra)], corpus, 1).findings.map((f) => [f.predicate, f.witnesses[1].value]);
}

describe('the worked example (the field case)', () => {
  it('a value found only in the model\'s own earlier answer files one finding with the whole shape', () => {
    const answer = unsupportedArgumentsOf([chose({ machine: '4417-ganymede' })], FIELD(), 2);
    assert.deepEqual(Object.keys(answer), ['findings', 'externalGroundings']);
    assert.deepEqual(answer.externalGroundings, []);
    assert.equal(answer.findings.length, 1);
    const [finding] = answer.findings;
    const tool = { kind: 'tool', id: 'backup_status' };
    assert.deepEqual(Object.keys(finding), ['kind', 'seam', 'subjects', 'predicate', 'witnesses', 'epoch', 'message']);
    assert.equal(finding.kind, 'unsupported-argument');
    assert.equal(finding.seam, 'choice');
    assert.deepEqual(finding.subjects, [tool]);
    assert.equal(finding.predicate, 'machine');
    assert.equal(finding.epoch, 2);
    assert.equal('advisory' in finding, false);
    assert.equal('synthetic' in finding, false);

    assert.equal(finding.witnesses.length, 2);
    for (const witness of finding.witnesses) {
      assert.deepEqual(Object.keys(witness), ['subject', 'predicate', 'value', 'epoch', 'stratum', 'provenance']);
      assert.deepEqual(witness.subject, tool);
      assert.equal(witness.predicate, 'machine');
      assert.equal(witness.epoch, 2);
      assert.equal(witness.stratum, 'asserted');
      assert.equal(typeof witness.provenance, 'string');
    }
    const [chosen, searched] = finding.witnesses;
    assert.equal(chosen.value, '4417-ganymede');
    assert.ok(chosen.provenance.includes('call-2'), chosen.provenance);
    assert.ok(chosen.provenance.includes('machine'), chosen.provenance);
    assert.equal(searched.value, SELF_REFERENCED);
    assert.match(searched.provenance, /served string/);
    assert.match(searched.provenance, /assistant turn/);

    for (const fact of ['backup_status', 'machine', '4417-ganymede', 'fleet_report', 'Nothing here blocked the call']) {
      assert.ok(finding.message.includes(fact), `message lacks ${JSON.stringify(fact)}: ${finding.message}`);
    }
    assert.match(finding.message, /own earlier answer|own earlier prose/i);
    assert.ok(!finding.message.includes('\n'), 'one paragraph');
  });

  it('the same call with the value served in a tool result files nothing', () => {
    const corpus = frame([SYSTEM, TASK, 'FLEET: callisto-02, 4417-ganymede'], [RENDERED]);
    assert.deepEqual(unsupportedArgumentsOf([chose({ machine: '4417-ganymede' })], corpus, 2), { findings: [], externalGroundings: [] });
  });

  it('with no assistant turn the value is nowhere, and the message says so', () => {
    const { findings, externalGroundings } = unsupportedArgumentsOf([chose({ machine: '4417-ganymede' })], frame([SYSTEM, TASK], []), 2);
    assert.deepEqual(externalGroundings, []);
    assert.equal(findings.length, 1);
    assert.equal(findings[0].predicate, 'machine');
    assert.equal(findings[0].witnesses[1].value, NOWHERE);
    assert.match(findings[0].message, /nowhere/i);
    assert.ok(findings[0].message.includes('tool result'), findings[0].message);
    assert.ok(findings[0].message.includes('Nothing here blocked the call'));
  });

  it('an external ground excuses it: no finding, one excusal carrying the source', () => {
    const corpus = frame([SYSTEM, TASK], [RENDERED], [{ value: '4417-ganymede', source: 'viewer-selection' }]);
    const answer = unsupportedArgumentsOf([chose({ machine: '4417-ganymede' })], corpus, 2);
    assert.deepEqual(answer.findings, []);
    assert.deepEqual(answer.externalGroundings, [
      { toolName: 'backup_status', toolCallId: 'call-2', path: 'machine', value: '4417-ganymede', source: 'viewer-selection' },
    ]);
    assert.deepEqual(Object.keys(answer.externalGroundings[0]), ['toolName', 'toolCallId', 'path', 'value', 'source']);
  });

  it('a value under the fence files nothing', () => {
    assert.deepEqual(unsupportedArgumentsOf([chose({ machine: 'abc' })], FIELD(), 2), { findings: [], externalGroundings: [] });
  });

  it('a declared enum member excuses it, whatever its case', () => {
    const call = chose({ machine: '4417-ganymede' }, { declaredEnums: new Set(['4417-GANYMEDE']) });
    assert.deepEqual(unsupportedArgumentsOf([call], FIELD(), 2), { findings: [], externalGroundings: [] });
  });

  it('the two unsupported states give different messages', () => {
    const nowhere = unsupportedArgumentsOf([chose({ machine: 'ganymede-99' })], frame([SYSTEM, 'Check that machine please.'], ['Checking.']), 2).findings[0];
    const selfOnly = unsupportedArgumentsOf([chose({ machine: 'ganymede-99' })], frame([SYSTEM], ['I looked at ganymede-99 earlier.']), 2).findings[0];
    assert.equal(nowhere.kind, 'unsupported-argument');
    assert.equal(selfOnly.kind, 'unsupported-argument');
    assert.notEqual(nowhere.message, selfOnly.message);
    assert.match(nowhere.message, /nowhere/i);
    assert.ok(nowhere.message.includes('tool result'));
    assert.match(selfOnly.message, /own earlier answer|own earlier prose/i);
    assert.equal(nowhere.witnesses[1].value, NOWHERE);
    assert.equal(selfOnly.witnesses[1].value, SELF_REFERENCED);
  });

  it('files one finding per offending argument, each with its own dot-path, in walk order', () => {
    const found = unsupportedArgumentsOf([chose({ machine: 'ganymede-99', region: 'sector-77' })], frame(['nothing useful here']), 2).findings;
    assert.deepEqual(found.map((f) => f.predicate), ['machine', 'region']);
  });

  it('walks nested objects and arrays, naming the leaf by its dot-path', () => {
    const found = unsupportedArgumentsOf([chose({ filter: { hosts: ['ganymede-99'] } })], frame(['nothing useful here']), 2).findings;
    assert.deepEqual(found.map((f) => f.predicate), ['filter.hosts.0']);
  });

  it('no calls is an empty answer', () => {
    assert.deepEqual(unsupportedArgumentsOf([], frame(['anything']), 2), { findings: [], externalGroundings: [] });
  });
});

describe('the fences, in order', () => {
  const NOTHING = () => frame(['nothing useful here']);

  it('never judges a value that is not a string', () => {
    const args = { count: 4417, latest: true, note: null, missing: undefined, big: 4417n, sym: Symbol('ganymede-99'), fn: () => 'ganymede-99' };
    assert.deepEqual(unsupportedArgumentsOf([chose(args)], NOTHING(), 2), { findings: [], externalGroundings: [] });
  });

  it('judges a value of four units or more, after trimming', () => {
    const args = {
      two: 'up',
      padded: 'a1 ',
      trimmedToThree: '\u00a0 abc\ufeff\u2028',
      four: 'abcd',
      paddedFour: '   wxyz   ',
      emoji: '😀😀',
      nel: '\u0085abc',
    };
    assert.deepEqual(states(args, NOTHING()).map(([path]) => path), ['four', 'paddedFour', 'emoji', 'nel']);
  });

  it('lets a served value pass, case-insensitively, wherever it sits in a served string', () => {
    assert.deepEqual(states({ machine: 'Ganymede-01' }, frame(['status for ganymede-01 please'])), []);
    assert.deepEqual(states({ machine: 'ganymede-01' }, frame([SYSTEM, 'FLEET: GANYMEDE-01, callisto-02'])), []);
    assert.deepEqual(states({ machine: '  ganymede-01\t' }, frame(['ganymede-01'])), []);
  });

  it('grounds on any served string: argumentsFrom decides nothing', () => {
    for (const argumentsFrom of [['fleet_report'], ['something_else'], []]) {
      assert.deepEqual(states({ machine: 'ganymede-01' }, frame(['whatever served ganymede-01']), { argumentsFrom }), []);
      assert.deepEqual(states({ machine: 'ganymede-02' }, frame(['whatever served ganymede-01']), { argumentsFrom }), [['machine', NOWHERE]]);
    }
  });

  it('decides nothing by toolCallId', () => {
    const a = unsupportedArgumentsOf([chose({ m: 'ganymede-99' }, { toolCallId: 'x' })], NOTHING(), 1);
    const b = unsupportedArgumentsOf([chose({ m: 'ganymede-99' }, { toolCallId: 'a much longer id' })], NOTHING(), 1);
    assert.deepEqual(verdictsOfAnswer(a).findings, verdictsOfAnswer(b).findings);
  });

  it('excuses a declared enum member: lowered, the whole string, members untrimmed, the needle trimmed', () => {
    const enums = (...members) => ({ declaredEnums: new Set(members) });
    assert.deepEqual(states({ window: 'NIGHTLY' }, NOTHING(), enums('nightly')), []);
    assert.deepEqual(states({ window: 'nightly' }, NOTHING(), enums('NIGHTLY')), []);
    assert.deepEqual(states({ window: '  nightly\u00a0' }, NOTHING(), enums('nightly')), []);
    // Whole-string equality, not containment, in either direction.
    assert.deepEqual(states({ window: 'nightly-run' }, NOTHING(), enums('nightly')), [['window', NOWHERE]]);
    assert.deepEqual(states({ window: 'nigh' }, NOTHING(), enums('nightly')), [['window', NOWHERE]]);
    // A member is lowered, never trimmed.
    assert.deepEqual(states({ window: 'nightly' }, NOTHING(), enums(' nightly')), [['window', NOWHERE]]);
    assert.deepEqual(states({ window: 'nightly' }, NOTHING(), enums('nightly ')), [['window', NOWHERE]]);
    // Flat: a member excuses the value at any field of the tool.
    assert.deepEqual(states({ a: 'weekly', deep: { b: ['Weekly'] } }, NOTHING(), enums('weekly')), []);
  });

  it('reads an enum fence made by declaredEnumValuesOf, and none when the schema is absent', () => {
    const declared = declaredEnumValuesOf({ type: 'object', properties: { window: { type: 'string', enum: ['nightly', 'weekly'] } } });
    assert.deepEqual(states({ window: 'nightly' }, NOTHING(), { declaredEnums: declared }), []);
    assert.equal(declaredEnumValuesOf(undefined).size, 0);
    assert.deepEqual(states({ window: 'nightly' }, NOTHING()), [['window', NOWHERE]]);
    assert.deepEqual(states({ window: 'nightly' }, NOTHING(), { declaredEnums: undefined }), [['window', NOWHERE]]);
    assert.deepEqual(states({ window: 'nightly' }, NOTHING(), { declaredEnums: new Set() }), [['window', NOWHERE]]);
  });

  it('the enum fence comes first: no excusal is recorded for a declared value', () => {
    const corpus = frame(['nothing'], ['srv-4471 mentioned'], [{ value: 'srv-4471', source: 'viewer-selection' }]);
    const answer = unsupportedArgumentsOf([chose({ machine: 'srv-4471' }, { declaredEnums: new Set(['SRV-4471']) })], corpus, 1);
    assert.deepEqual(answer, { findings: [], externalGroundings: [] });
  });

  it('served wins over external: a value in both gets no excusal record', () => {
    const corpus = frame(['FLEET: callisto-02 (online)'], [], [{ value: 'callisto-02', source: 'viewer-selection' }]);
    assert.deepEqual(unsupportedArgumentsOf([chose({ machine: 'callisto-02' })], corpus, 2), { findings: [], externalGroundings: [] });
  });

  it('the first usable external entry that holds the value names the source', () => {
    const external = [
      null,
      { value: 'srv-4471', source: '  ' },
      { value: 'unrelated-9999', source: 'first-usable-but-no-match' },
      { value: 'row: SRV-4471 | eu-west', source: 'viewer-selection' },
      { value: 'srv-4471', source: 'later-exact-match' },
    ];
    const { findings, externalGroundings } = unsupportedArgumentsOf([chose({ machine: 'srv-4471' })], frame(['nothing'], [], external), 2);
    assert.deepEqual(findings, []);
    assert.deepEqual(externalGroundings.map((g) => g.source), ['viewer-selection']);
  });

  it('external matching is substring and case-insensitive, like the served fence', () => {
    const external = [{ value: 'row: srv-render-4471 | eu-west', source: 'viewer-selection' }];
    const { findings, externalGroundings } = unsupportedArgumentsOf([chose({ machine: 'SRV-RENDER-4471' })], frame(['nothing'], [], external), 2);
    assert.deepEqual(findings, []);
    assert.deepEqual(externalGroundings, [{ toolName: 'backup_status', toolCallId: 'call-2', path: 'machine', value: 'SRV-RENDER-4471', source: 'viewer-selection' }]);
  });

  it('the external entry is load-bearing: without it the same value files', () => {
    const { findings, externalGroundings } = unsupportedArgumentsOf([chose({ machine: 'srv-render-4471' })], frame(['nothing useful here']), 2);
    assert.equal(findings.length, 1);
    assert.deepEqual(externalGroundings, []);
  });

  it('an external excusal comes before the model\'s own text: self-reference is only what is left', () => {
    const corpus = frame(['nothing'], ['I saw srv-4471 before'], [{ value: 'srv-4471', source: 'viewer' }]);
    const answer = unsupportedArgumentsOf([chose({ machine: 'srv-4471' })], corpus, 1);
    assert.deepEqual(answer.findings, []);
    assert.equal(answer.externalGroundings.length, 1);
  });

  it('what is left is self-referenced when an assistant turn holds it, nowhere otherwise', () => {
    const corpus = frame(['served: callisto-02'], ['first turn', 'I think GANYMEDE-7 is the one']);
    assert.deepEqual(states({ a: 'ganymede-7', b: 'europa-12', c: 'callisto-02' }, corpus), [['a', SELF_REFERENCED], ['b', NOWHERE]]);
  });

  it('returns findings and excusals in call order, then leaf order', () => {
    const corpus = frame(['served-1111'], ['echo-2222'], [{ value: 'ext-3333 ext-4444', source: 'app' }]);
    const calls = [
      chose({ z: 'ext-4444', a: 'echo-2222', n: 'none-5555' }, { toolName: 'first', toolCallId: 'c-1' }),
      chose({ list: ['none-6666', 'ext-3333', 'served-1111'] }, { toolName: 'second', toolCallId: 'c-2' }),
    ];
    const answer = unsupportedArgumentsOf(calls, corpus, 1);
    assert.deepEqual(answer.findings.map((f) => [f.subjects[0].id, f.predicate, f.witnesses[1].value]), [
      ['first', 'a', SELF_REFERENCED], ['first', 'n', NOWHERE], ['second', 'list.0', NOWHERE],
    ]);
    assert.deepEqual(answer.externalGroundings.map((g) => [g.toolName, g.toolCallId, g.path]), [['first', 'c-1', 'z'], ['second', 'c-2', 'list.1']]);
  });
});

describe('external grounds: hygiene', () => {
  const call = () => [chose({ machine: 'srv-render-4471' })];
  const without = () => unsupportedArgumentsOf(call(), frame(['nothing useful here']), 2);
  const withExternal = (external) => unsupportedArgumentsOf(call(), { grounded: ['nothing useful here'], assistant: [], external }, 2);

  const GARBAGE = [
    ['null', null],
    ['a number', 42],
    ['a string', 'just-a-string srv-render-4471'],
    ['a boolean', true],
    ['an empty object', {}],
    ['an empty value', { value: '', source: 'viewer-selection' }],
    ['a blank value', { value: '   ', source: 'viewer-selection' }],
    ['a value that is only a BOM (U+FEFF is trimmed)', { value: '\ufeff', source: 's' }],
    ['a value that is only no-break spaces and line separators', { value: '\u00a0\u2028\u2029', source: 's' }],
    ['a number value', { value: 4471, source: 's' }],
    ['a boxed string value', { value: new String('srv-render-4471'), source: 's' }],
    ['no value', { source: 'viewer-selection' }],
    ['an empty source', { value: 'srv-render-4471', source: '' }],
    ['a blank source', { value: 'srv-render-4471', source: '   ' }],
    ['a source that is only a BOM', { value: 'srv-render-4471', source: '\ufeff' }],
    ['no source', { value: 'srv-render-4471' }],
    ['a number source', { value: 'srv-render-4471', source: 7 }],
    ['an array', ['srv-render-4471', 'viewer-selection']],
    ['a function with the fields', Object.assign(() => {}, { value: 'srv-render-4471', source: 's' })],
  ];

  for (const [name, entry] of GARBAGE) {
    it(`drops ${name} without a word`, () => {
      assert.deepEqual(withExternal([entry]), without());
    });
  }

  it('all the garbage together still gives the answer without external', () => {
    assert.deepEqual(withExternal(GARBAGE.map(([, entry]) => entry)), without());
    assert.equal(withExternal(GARBAGE.map(([, entry]) => entry)).findings.length, 1);
  });

  it('an empty array is no external at all', () => {
    assert.deepEqual(withExternal([]), without());
  });

  it('treats an external that is not an array as absent', () => {
    const usable = { value: 'srv-render-4471', source: 'viewer-selection' };
    for (const external of ['not-an-array', usable, new Set([usable]), null, undefined, 42, { 0: usable, length: 1 }, new Map([[0, usable]])]) {
      assert.deepEqual(withExternal(external), without(), String(external));
    }
  });

  it('reads an array given as a Proxy as an array', () => {
    const answer = withExternal(new Proxy([{ value: 'srv-render-4471', source: 'viewer-selection' }], {}));
    assert.deepEqual(answer.findings, []);
    assert.equal(answer.externalGroundings[0].source, 'viewer-selection');
  });

  it('keeps U+0085, which trim keeps: a value or source of it is usable', () => {
    const nel = '\u0085\u0085\u0085\u0085';
    const excused = unsupportedArgumentsOf([chose({ v: nel })], frame(['nothing'], [], [{ value: nel, source: 'app' }]), 1);
    assert.deepEqual(excused.externalGroundings.map((g) => [g.path, g.value]), [['v', nel]]);
    const labelled = withExternal([{ value: 'srv-render-4471', source: '\u0085' }]);
    assert.deepEqual(labelled.externalGroundings.map((g) => g.source), ['\u0085']);
    // A lone U+0085 is usable but can hold no needle of four units.
    assert.deepEqual(withExternal([{ value: '\u0085', source: 's' }]), without());
  });

  it('matches on the value untrimmed and lowered, and keeps the source and the leaf untrimmed', () => {
    const answer = unsupportedArgumentsOf(
      [chose({ machine: '\u00a0SRV-4471 ' })],
      frame(['nothing'], [], [{ value: '  SRV-4471  ', source: '  viewer-selection\t' }]),
      2,
    );
    assert.deepEqual(answer.findings, []);
    assert.deepEqual(answer.externalGroundings, [
      { toolName: 'backup_status', toolCallId: 'call-2', path: 'machine', value: '\u00a0SRV-4471 ', source: '  viewer-selection\t' },
    ]);
  });

  it('reads value and source by ordinary property access: inherited and getter fields count', () => {
    const inherited = Object.create({ value: 'srv-render-4471', source: 'from-the-prototype' });
    assert.deepEqual(withExternal([inherited]).externalGroundings.map((g) => g.source), ['from-the-prototype']);
    const viaGetters = { get value() { return 'srv-render-4471'; }, get source() { return 'from-a-getter'; } };
    assert.deepEqual(withExternal([viaGetters]).externalGroundings.map((g) => g.source), ['from-a-getter']);
    const hidden = {};
    Object.defineProperty(hidden, 'value', { value: 'srv-render-4471', enumerable: false });
    Object.defineProperty(hidden, 'source', { value: 'non-enumerable', enumerable: false });
    assert.deepEqual(withExternal([hidden]).externalGroundings.map((g) => g.source), ['non-enumerable']);
    const array = Object.assign(['x'], { value: 'srv-render-4471', source: 'an-array-with-fields' });
    assert.deepEqual(withExternal([array]).externalGroundings.map((g) => g.source), ['an-array-with-fields']);
  });

  it('prepares the external entries once per answer, however many calls and leaves there are', () => {
    const reads = (calls) => {
      let count = 0;
      const entry = {
        get value() {
          count++;
          return 'srv-render-4471 ext-2222';
        },
        get source() {
          count++;
          return 'viewer-selection';
        },
      };
      unsupportedArgumentsOf(calls, frame(['nothing'], [], [entry]), 1);
      return count;
    };
    const one = reads([chose({ a: 'srv-render-4471' })]);
    assert.ok(one > 0);
    const many = reads([
      chose({ a: 'srv-render-4471', b: 'ext-2222', c: 'none-3333', d: ['ext-2222', 'none-4444'] }),
      chose({ a: 'srv-render-4471', b: 'none-5555' }),
      chose({ z: 'ext-2222' }),
    ]);
    assert.equal(many, one);
    assert.equal(reads([]), 0);
  });
});

describe('the finding shape', () => {
  const one = (epoch, args = { machine: 'ganymede-99' }) => unsupportedArgumentsOf([chose(args)], frame(['nothing']), epoch).findings[0];

  it('stamps the epoch verbatim on the finding and both witnesses', () => {
    for (const epoch of [0, -0, 1.5, -1, 2 ** 40, Number.MAX_SAFE_INTEGER, NaN, Infinity, -Infinity, Number.MIN_VALUE]) {
      const finding = one(epoch);
      assert.ok(Object.is(finding.epoch, epoch), String(epoch));
      for (const witness of finding.witnesses) assert.ok(Object.is(witness.epoch, epoch), String(epoch));
    }
  });

  it('has no advisory key, no synthetic key, and always a predicate', () => {
    for (const args of [{ machine: 'ganymede-99' }, { '': 'ganymede-99' }, ['ganymede-99']]) {
      const finding = one(1, args);
      assert.equal('advisory' in finding, false);
      assert.equal('synthetic' in finding, false);
      assert.equal(typeof finding.predicate, 'string');
      assert.deepEqual(Object.keys(finding), ['kind', 'seam', 'subjects', 'predicate', 'witnesses', 'epoch', 'message']);
    }
  });

  it('keeps the leaf untrimmed in the first witness', () => {
    const leaf = ' \u00a0ganymede-99\ufeff\t';
    assert.equal(one(1, { machine: leaf }).witnesses[0].value, leaf);
  });

  it('names the call id and the argument in the first witness\'s provenance', () => {
    const [finding] = unsupportedArgumentsOf([chose({ target: { host: 'ganymede-99' } }, { toolCallId: 'toolu_01XYZ' })], frame(['x']), 1).findings;
    assert.ok(finding.witnesses[0].provenance.includes('toolu_01XYZ'), finding.witnesses[0].provenance);
    assert.ok(finding.witnesses[0].provenance.includes('target.host'), finding.witnesses[0].provenance);
  });

  it('describes the frame in the second witness\'s provenance: how many served strings and assistant turns', () => {
    const corpus = frame(['a', 'b', 'c', 'd', 'e', 'f', 'g'], ['one', 'two']);
    const [finding] = unsupportedArgumentsOf([chose({ machine: 'ganymede-99' })], corpus, 1).findings;
    const { provenance } = finding.witnesses[1];
    assert.match(provenance, /served string/);
    assert.match(provenance, /assistant turn/);
    assert.match(provenance, /\b7\b/);
    assert.match(provenance, /\b2\b/);
    const other = unsupportedArgumentsOf([chose({ machine: 'ganymede-99' })], frame(['a'], ['one', 'two', 'three', 'four', 'five']), 1).findings[0];
    assert.notEqual(other.witnesses[1].provenance, provenance);
    assert.match(other.witnesses[1].provenance, /\b5\b/);
  });

  it('gives each finding its own objects', () => {
    const { findings } = unsupportedArgumentsOf([chose({ a: 'ganymede-98', b: 'ganymede-99' })], frame(['x']), 1);
    assert.notEqual(findings[0], findings[1]);
    assert.notEqual(findings[0].witnesses, findings[1].witnesses);
    assert.deepEqual(findings[0].subjects, findings[1].subjects);
  });
});

describe('dot-paths are not escaped', () => {
  const paths = (args) => unsupportedArgumentsOf([chose(args)], frame(['x']), 1).findings.map((f) => [f.predicate, f.witnesses[0].value]);

  it('a dotted key and a nested key share a path, and both are filed', () => {
    assert.deepEqual(paths({ 'a.b': 'first-1111', a: { b: 'second-2222' } }), [['a.b', 'first-1111'], ['a.b', 'second-2222']]);
  });

  it('an integer key holding an array gives 0.0', () => {
    assert.deepEqual(paths({ 0: ['value-0000'] }), [['0.0', 'value-0000']]);
  });

  it('an empty key at the top leaves the path empty', () => {
    assert.deepEqual(paths({ '': { b: 'value-1111' } }), [['b', 'value-1111']]);
    assert.deepEqual(paths({ '': ['value-2222'] }), [['0', 'value-2222']]);
    assert.deepEqual(paths({ '': 'value-3333' }), [['', 'value-3333']]);
    assert.deepEqual(paths({ a: { '': 'value-4444' } }), [['a.', 'value-4444']]);
  });

  it('does not deduplicate: the same leaf twice files twice', () => {
    assert.deepEqual(paths({ a: 'same-9999', list: ['same-9999', 'same-9999'] }), [['a', 'same-9999'], ['list.0', 'same-9999'], ['list.1', 'same-9999']]);
    const twice = unsupportedArgumentsOf([chose({ m: 'same-9999' }), chose({ m: 'same-9999' })], frame(['x']), 1);
    assert.equal(twice.findings.length, 2);
  });

  it('follows JavaScript property order and reads own enumerable string keys only', () => {
    const args = Object.create({ inherited: 'value-0001' });
    Object.assign(args, { zulu: 'value-0002', 10: 'value-0003', 2: 'value-0004' });
    Object.defineProperty(args, 'hidden', { value: 'value-0005', enumerable: false });
    args[Symbol('s')] = 'value-0006';
    assert.deepEqual(paths(args).map(([path]) => path), ['2', '10', 'zulu']);
  });

  it('walks an array given as args, a path from its index', () => {
    assert.deepEqual(paths(['value-1111', { k: 'value-2222' }]), [['0', 'value-1111'], ['1.k', 'value-2222']]);
  });
});

describe('no calls', () => {
  it('returns before the corpus is read', () => {
    const reads = [];
    const untouchable = new Proxy({}, {
      get(_, key) {
        reads.push(key);
        throw new Error('the corpus was read');
      },
      has() { throw new Error('the corpus was read'); },
      ownKeys() { throw new Error('the corpus was read'); },
      getOwnPropertyDescriptor() { throw new Error('the corpus was read'); },
      getPrototypeOf() { throw new Error('the corpus was read'); },
    });
    for (const corpus of [untouchable, undefined, null, 'not a corpus', { grounded: 'no', assistant: 7 }, { get grounded() { throw new Error('read'); } }]) {
      assert.deepEqual(unsupportedArgumentsOf([], corpus, 1), { findings: [], externalGroundings: [] });
    }
    assert.deepEqual(reads, []);
  });

  it('gives fresh arrays each time', () => {
    const a = unsupportedArgumentsOf([], frame([]), 1);
    const b = unsupportedArgumentsOf([], frame([]), 1);
    assert.notEqual(a.findings, b.findings);
    a.findings.push('mutated');
    assert.deepEqual(unsupportedArgumentsOf([], frame([]), 1).findings, []);
  });
});

describe('JavaScript string semantics', () => {
  const served = (leaf, text) => states({ v: leaf }, frame([text])).length === 0;
  const cases = [
    ['a sigma lowers by its context in the text: final before a space', 'ΑΔΟΣ', 'ΑΔΟΣ Α', true],
    ['a sigma lowers by its context in the text: medial before a letter', 'ΑΔΟΣ', 'ΑΔΟΣΑ', false],
    ['the needle is lowered on its own', 'ΑΔΟΣΑ', 'αδοσα', true],
    ['İ lowers to i and U+0307, and does not meet a plain i', 'İstanbul', 'istanbul', false],
    ['a plain i does not meet İ', 'istanbul', 'İstanbul', false],
    ['İ meets its own lowering', 'İSTANBUL', 'i\u0307stanbul', true],
    ['STRASSE does not meet straße', 'STRASSE', 'straße', false],
    ['straße does not meet STRASSE', 'straße', 'STRASSE', false],
    ['the Kelvin sign lowers to k', '\u212Aelvin', 'kelvin', true],
    ['k meets a Kelvin sign in the text', 'KELVIN', 'the \u212Aelvin scale', true],
    ['containment is plain substring', 'ost-', 'host-a', true],
    ['a lone surrogate is kept as it is', '\ud800abc', 'x\ud800ABC', true],
    ['a lone surrogate is not replaced', '\ud800abc', 'x\ufffdabc', false],
    ['trim takes U+FEFF, U+00A0, U+2028 and U+2029', '\ufeff\u00a0host-a\u2028\u2029', 'host-a', true],
    ['trim keeps U+0085', '\u0085host', 'host', false],
  ];
  for (const [name, leaf, text, expected] of cases) {
    it(name, () => assert.equal(served(leaf, text), expected));
  }

  it('the same semantics hold in the assistant text, the enum fence and the external fence', () => {
    assert.deepEqual(states({ v: 'ΑΔΟΣ' }, frame([], ['ΑΔΟΣΑ'])), [['v', NOWHERE]]);
    assert.deepEqual(states({ v: 'ΑΔΟΣ' }, frame([], ['ΑΔΟΣ Α'])), [['v', SELF_REFERENCED]]);
    assert.deepEqual(states({ v: 'kelvin' }, frame([]), { declaredEnums: new Set(['\u212Aelvin']) }), []);
    assert.deepEqual(states({ v: 'STRASSE' }, frame([]), { declaredEnums: new Set(['straße']) }), [['v', NOWHERE]]);
    assert.deepEqual(states({ v: 'istanbul' }, frame([], [], [{ value: 'İstanbul', source: 's' }])), [['v', NOWHERE]]);
    assert.deepEqual(states({ v: 'KELVIN' }, frame([], [], [{ value: '\u212Aelvin', source: 's' }])), []);
  });

  it('carries lone surrogates in names, ids, keys and values into the answer unchanged', () => {
    const call = { toolName: 'tool\ud800', toolCallId: 'id-\udfff', args: { '\udc00key': '\ud83dvalue' }, argumentsFrom: ['ground\udbff'] };
    const [finding] = unsupportedArgumentsOf([call], frame(['x']), 1).findings;
    assert.deepEqual(finding.subjects, [{ kind: 'tool', id: 'tool\ud800' }]);
    assert.equal(finding.predicate, '\udc00key');
    assert.equal(finding.witnesses[0].value, '\ud83dvalue');
    assert.ok(finding.witnesses[0].provenance.includes('id-\udfff'));
    for (const fact of ['tool\ud800', '\udc00key', '\ud83dvalue', 'ground\udbff']) assert.ok(finding.message.includes(fact), JSON.stringify(fact));
    assert.ok(!finding.message.includes('\ufffd'));
  });
});

describe('the message', () => {
  const messageOf = (leaf, extra) => unsupportedArgumentsOf([chose({ machine: leaf }, extra)], frame(['nothing']), 1).findings[0].message;

  it('quotes the trimmed value, with the tool, the path and every name of argumentsFrom', () => {
    const message = messageOf('\u00a0\u00a0ganymede-99\u00a0', { argumentsFrom: ['fleet_report', 'cmdb_export', 'asset_index'] });
    for (const fact of ['backup_status', 'machine', 'ganymede-99', 'fleet_report', 'cmdb_export', 'asset_index', 'Nothing here blocked the call']) {
      assert.ok(message.includes(fact), `${JSON.stringify(fact)} in ${message}`);
    }
    assert.ok(!message.includes('\u00a0'), 'the padding is trimmed away');
  });

  it('still files, with the tool and value, when argumentsFrom is empty', () => {
    const message = messageOf('ganymede-99', { argumentsFrom: [] });
    for (const fact of ['backup_status', 'machine', 'ganymede-99', 'Nothing here blocked the call']) assert.ok(message.includes(fact), fact);
  });

  it('stays under 600 units for a 409-unit value, clipped, while the witness keeps it whole', () => {
    const long = `ganymede-${'x'.repeat(400)}`;
    assert.equal(long.length, 409);
    const [finding] = unsupportedArgumentsOf([chose({ machine: long })], frame(['nothing']), 2).findings;
    assert.ok(finding.message.length < 600, String(finding.message.length));
    assert.ok(finding.message.includes('…'));
    assert.ok(finding.message.includes(`ganymede-${'x'.repeat(70)}…`));
    assert.ok(!finding.message.includes('x'.repeat(71)));
    assert.equal(finding.witnesses[0].value, long);
  });

  it('quotes up to 80 units whole and clips longer values to 79 and an ellipsis', () => {
    const exactly = 'b'.repeat(80);
    assert.ok(messageOf(exactly).includes(exactly));
    assert.ok(!messageOf(exactly).includes('…'));
    const over = 'c'.repeat(81);
    assert.ok(messageOf(over).includes(`${'c'.repeat(79)}…`));
    assert.ok(!messageOf(over).includes('c'.repeat(80)));
    // Trimming comes first: a padded 80-unit value is not clipped.
    assert.ok(messageOf(`  ${exactly}  `).includes(exactly));
  });

  it('never splits a surrogate pair where it clips', () => {
    const leaf = `  ${'a'.repeat(78)}😀tail  `;
    const message = messageOf(leaf);
    assert.ok(message.includes(`${'a'.repeat(78)}…`), message);
    assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(message), 'no lone high surrogate');
    assert.ok(!/(?<![\ud800-\udbff])[\udc00-\udfff]/.test(message), 'no lone low surrogate');
    // A pair that ends exactly at the cut is kept.
    const whole = `${'a'.repeat(77)}😀tail`;
    assert.ok(messageOf(whole).includes(`${'a'.repeat(77)}😀…`));
  });
});

describe('declaredEnumValuesOf', () => {
  it('collects every enum at any depth, in first-seen order (the spec\'s example)', () => {
    const values = declaredEnumValuesOf({
      type: 'object',
      properties: {
        window: { type: 'string', enum: ['nightly', 'weekly'] },
        filter: { properties: { tier: { enum: ['gold', 'silver'] } } },
        hosts: { items: { enum: ['a-host'] } },
      },
    });
    assert.ok(values instanceof Set);
    assert.deepEqual([...values], ['nightly', 'weekly', 'gold', 'silver', 'a-host']);
  });

  it('skips members that are not strings', () => {
    assert.deepEqual([...declaredEnumValuesOf({ enum: [1, true, 'keep'] })], ['keep']);
    assert.deepEqual([...declaredEnumValuesOf({ enum: [null, undefined, 4n, new String('boxed'), ['nested'], 'kept'] })], ['kept']);
  });

  it('gives an empty Set for a schema that is not an object, never a throw', () => {
    for (const schema of [undefined, null, 'not a schema', 42, NaN, true, 10n, Symbol('s'), () => ({ enum: ['x'] })]) {
      const values = declaredEnumValuesOf(schema);
      assert.ok(values instanceof Set);
      assert.equal(values.size, 0);
    }
    assert.equal(declaredEnumValuesOf().size, 0);
  });

  it('returns a real Set, fresh each time', () => {
    const schema = { enum: ['a', 'b'] };
    const first = declaredEnumValuesOf(schema);
    assert.equal(Object.getPrototypeOf(first), Set.prototype);
    assert.deepEqual([...first], ['a', 'b']);
    first.add('c');
    assert.deepEqual([...declaredEnumValuesOf(schema)], ['a', 'b']);
  });

  it('collects an enum at depth 8 and not at depth 9', () => {
    const nest = (levels, wrap) => {
      let node = { enum: ['deep'] };
      for (let i = 0; i < levels; i++) node = wrap(node);
      return node;
    };
    const byProperty = (node) => ({ p: node });
    const byArray = (node) => [node];
    const byAnyOf = (node) => ({ anyOf: [node] }); // two levels: the array, then its element
    assert.deepEqual([...declaredEnumValuesOf(nest(8, byProperty))], ['deep']);
    assert.deepEqual([...declaredEnumValuesOf(nest(9, byProperty))], []);
    assert.deepEqual([...declaredEnumValuesOf(nest(8, byArray))], ['deep']);
    assert.deepEqual([...declaredEnumValuesOf(nest(9, byArray))], []);
    assert.deepEqual([...declaredEnumValuesOf(nest(4, byAnyOf))], ['deep']);
    assert.deepEqual([...declaredEnumValuesOf({ q: nest(4, byAnyOf) })], []);
    // The members of an enum at depth 8 sit at depth 9; only objects among them would be cut off.
    assert.deepEqual([...declaredEnumValuesOf(nest(7, byProperty))], ['deep']);
    const atEight = nest(8, byProperty);
    let inner = atEight;
    for (let i = 0; i < 8; i++) inner = inner.p;
    inner.enum.push({ enum: ['too-deep'] });
    assert.deepEqual([...declaredEnumValuesOf(atEight)], ['deep']);
  });

  it('reads enum by ordinary property access and walks Object.values, the enum array included', () => {
    assert.deepEqual([...declaredEnumValuesOf(Object.create({ enum: ['inherited'] }))], ['inherited']);
    const hidden = {};
    Object.defineProperty(hidden, 'enum', { value: ['non-enumerable'], enumerable: false });
    assert.deepEqual([...declaredEnumValuesOf(hidden)], ['non-enumerable']);
    assert.deepEqual([...declaredEnumValuesOf({ enum: ['outer', { enum: ['inner'] }] })], ['outer', 'inner']);
    const notWalked = {};
    Object.defineProperty(notWalked, 'secret', { value: { enum: ['not-walked'] }, enumerable: false });
    assert.deepEqual([...declaredEnumValuesOf(notWalked)], []);
    const viaGetter = { get properties() { return { x: { enum: ['from-getter'] } }; } };
    assert.deepEqual([...declaredEnumValuesOf(viaGetter)], ['from-getter']);
  });

  it('does not know JSON Schema: an enum array counts wherever it sits', () => {
    const schema = {
      anyOf: [{ enum: ['any-of'] }],
      description: { enum: ['under-a-description'] },
      examples: [{ deeply: { enum: ['in-examples'] } }],
      enum: 'not an array',
      const: { enum: 'still not', nested: { enum: ['under-const'] } },
    };
    assert.deepEqual([...declaredEnumValuesOf(schema)], ['any-of', 'under-a-description', 'in-examples', 'under-const']);
  });

  it('collapses duplicates and keeps values exactly as declared', () => {
    const values = declaredEnumValuesOf({ a: { enum: [' Nightly ', 'WEEKLY', 'nightly'] }, b: { enum: ['WEEKLY', ' Nightly '] } });
    assert.deepEqual([...values], [' Nightly ', 'WEEKLY', 'nightly']);
  });

  it('terminates on a cyclic schema, by the depth limit', () => {
    const schema = { enum: ['looped'] };
    schema.self = schema;
    schema.list = [schema];
    assert.deepEqual([...declaredEnumValuesOf(schema)], ['looped']);
  });

  it('agrees with the model on random schemas', () => {
    const r = rng(4417);
    const words = ['nightly', 'NIGHTLY', ' weekly', 'gold', 'Σίσυφος', 'İ', '😀', ''];
    const node = (depth) => {
      const roll = r.below(8);
      if (depth > 11 || roll === 0) return r.pick(words);
      if (roll === 1) return r.below(9);
      if (roll === 2) return null;
      if (roll === 3) return Array.from({ length: r.below(3) }, () => node(depth + 1));
      const object = {};
      for (let i = r.below(4); i > 0; i--) object[r.pick(['properties', 'items', 'x', 'enum', '0'])] = node(depth + 1);
      if (r.chance(0.5)) object.enum = Array.from({ length: r.below(4) }, () => (r.chance(0.8) ? r.pick(words) : node(depth + 1)));
      return object;
    };
    let nonEmpty = 0;
    for (let i = 0; i < 500; i++) {
      const schema = node(0);
      const expected = [...modelDeclaredEnums(schema)];
      assert.deepEqual([...declaredEnumValuesOf(schema)], expected, JSON.stringify(schema));
      if (expected.length > 0) nonEmpty++;
    }
    assert.ok(nonEmpty > 100, String(nonEmpty));
  });
});

describe('agreement with the model', () => {
  it('decides every leaf of a few thousand random calls as the model does', () => {
    const r = rng(20261201);
    const atoms = ['host', 'HOST', 'Gany', 'mede', 'Σ', 'σ', 'ς', 'İ', 'i', '\u0307', 'ß', 'SS', '\u212A', 'k', 'Ω', 'é', 'E\u0301',
      ' ', '\u00a0', '\ufeff', '\u0085', '😀', '\ud800', '-', '4', '17', '.'];
    const word = () => Array.from({ length: 1 + r.below(5) }, () => r.pick(atoms)).join('');
    const counts = {};
    let pool = [];
    const text = () => Array.from({ length: r.below(4) }, () => r.pick(pool)).join(r.pick([' ', '', ', ', 'Σ']));
    const leaf = () => {
      let value = r.chance(0.85) ? r.pick(pool) : word();
      if (r.chance(0.3)) value = value.toUpperCase();
      if (r.chance(0.15)) value = value.toLowerCase();
      if (r.chance(0.2)) value = r.pick([' ', '\u00a0', '\u0085', '\ufeff', '\t']) + value;
      if (r.chance(0.1)) value += r.pick([' ', '\u2028']);
      return value;
    };
    const value = (depth) => {
      const roll = r.below(12);
      if (depth > 3 || roll < 6) return leaf();
      if (roll === 6) return r.pick([4417, true, null, undefined]);
      if (roll < 9) return Array.from({ length: r.below(4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: r.below(4) }, () => [r.pick(['k', '1', '0', 'Σ', 'a.b', '', 'host']), value(depth + 1)]));
    };
    const garbage = () => r.pick([null, 42, 'text', {}, { value: '' }, { value: '  ', source: 's' }, { value: '\ufeff', source: 's' },
      { value: 4471, source: 's' }, { value: r.pick(pool), source: '' }, { value: r.pick(pool) }, [r.pick(pool)]]);
    const external = () => {
      if (r.chance(0.4)) return undefined;
      if (r.chance(0.1)) return r.pick(['not-an-array', null, {}, new Set()]);
      return Array.from({ length: r.below(4) }, () => (r.chance(0.3) ? garbage() : { value: (r.chance(0.3) ? ' ' : '') + text(), source: r.pick(['viewer', ' padded ', 'app-\u0085', 'Σ']) }));
    };
    for (let i = 0; i < 3000; i++) {
      pool = Array.from({ length: 5 }, () => word() + word());
      const calls = Array.from({ length: 1 + r.below(3) }, (_, k) => {
        const call = {
          toolName: r.pick(['backup_status', 'lookup', 'Σ-tool']),
          toolCallId: `call-${i}-${k}`,
          args: Object.fromEntries(Array.from({ length: 1 + r.below(3) }, (_, j) => [r.pick([`a${j}`, 'Σ', '0', '']), value(0)])),
          argumentsFrom: r.chance(0.8) ? ['fleet_report'] : [],
        };
        if (r.chance(0.3)) call.declaredEnums = new Set(Array.from({ length: 1 + r.below(3) }, () => (r.chance(0.5) ? r.pick(pool).toUpperCase() : r.pick(pool))));
        return call;
      });
      const corpus = { grounded: Array.from({ length: r.below(4) }, text), assistant: Array.from({ length: r.below(3) }, text) };
      const ext = external();
      if (ext !== undefined || r.chance(0.2)) corpus.external = ext;
      const verdicts = modelChoiceVerdicts(calls, corpus);
      for (const { verdict } of verdicts) counts[verdict] = (counts[verdict] ?? 0) + 1;
      const answer = unsupportedArgumentsOf(calls, corpus, i);
      assert.deepEqual(verdictsOfAnswer(answer), visibleVerdicts(verdicts), `case ${i}: ${JSON.stringify({ calls: calls.map((c) => ({ ...c, declaredEnums: c.declaredEnums && [...c.declaredEnums] })), corpus })}`);
      for (const finding of answer.findings) assert.equal(finding.epoch, i);
    }
    // Every verdict must come up often enough to mean something.
    for (const verdict of ['short', 'enum', 'served', 'external', 'self-referenced', 'nowhere']) {
      assert.ok((counts[verdict] ?? 0) > 150, JSON.stringify(counts));
    }
  });
});
