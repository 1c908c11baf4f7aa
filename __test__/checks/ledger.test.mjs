// The accounting surface (lib/guard/ledger.cjs): the disposition ledger, its
// error, the finding identity and seamguard's run start. The rules are in
// docs/checks.md, "The ledger".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const {
  dispositionLedger,
  CheckerDeadError,
  contextErrorIdentity,
  dedupeContextErrors,
  beginIntegrityRun,
} = require('../../lib/guard/ledger.cjs');

const ROW_KEYS = ['check', 'seam', 'checked', 'findings', 'notApplicable', 'unreachable', 'synthetic'];
const FIRED_ROW_KEYS = ['check', 'seam', 'checked', 'findings', 'notApplicable', 'unreachable', 'lastFiredAt', 'synthetic'];

/** A row with every count at 0, overridden by `counts`. */
const row = (check, seam, counts = {}) => ({
  check, seam, checked: 0, findings: 0, notApplicable: 0, unreachable: 0, synthetic: 0, ...counts,
});

/** The CheckerDeadError `fn` throws; fails when it throws nothing or something else. */
function deadErrorOf(fn) {
  let caught;
  assert.throws(fn, (e) => {
    caught = e;
    return e instanceof CheckerDeadError;
  });
  return caught;
}

// ---------------------------------------------------------------------------
// The ledger's laws (agentfootprint's eight, in our words)
// ---------------------------------------------------------------------------

describe('ledger: one row of counts per (check, seam)', () => {
  it('each disposition lands in its own count, and a fail is also a check', () => {
    const l = dispositionLedger();
    l.register('unsupported-argument', 'choice');
    l.note('unsupported-argument', 'choice', 'checked-pass');
    l.note('unsupported-argument', 'choice', 'checked-fail', 77);
    l.note('unsupported-argument', 'choice', 'not-applicable');
    l.note('unsupported-argument', 'choice', 'unreachable');
    assert.deepEqual(l.report(), [
      row('unsupported-argument', 'choice', { checked: 2, findings: 1, notApplicable: 1, unreachable: 1, lastFiredAt: 77 }),
    ]);
  });

  it('a row that never fired has no lastFiredAt key at all', () => {
    const l = dispositionLedger();
    l.register('empty-lookup', 'write');
    l.note('empty-lookup', 'write', 'checked-pass');
    const [only] = l.report();
    assert.equal('lastFiredAt' in only, false);
    assert.equal(Object.hasOwn(only, 'lastFiredAt'), false);
  });
});

describe('ledger: theorem (i), the wiring alarm', () => {
  it('a run whose check really ran passes', () => {
    const l = dispositionLedger();
    l.register('dangling-reference', 'compose');
    l.note('dangling-reference', 'compose', 'checked-pass');
    assert.equal(l.assertAlive({ workExisted: true }), undefined);
  });

  it('a registered check that filed nothing while there was work is named as dead', () => {
    const l = dispositionLedger();
    l.register('unsupported-argument', 'choice');
    const e = deadErrorOf(() => l.assertAlive({ workExisted: true }));
    assert.match(e.message, /unsupported-argument/);
    assert.equal(e.check, 'unsupported-argument');
    assert.equal(e.seam, 'choice');
  });

  it('a run with no work is healthy, with or without opts', () => {
    const l = dispositionLedger();
    l.register('unsupported-argument', 'choice');
    assert.doesNotThrow(() => l.assertAlive());
    assert.doesNotThrow(() => l.assertAlive({ workExisted: false }));
  });
});

describe('ledger: theorem (ii), the canary, kept apart from the real counts', () => {
  it('a minted canary must be caught', () => {
    const l = dispositionLedger();
    l.register('empty-lookup', 'write');
    l.noteSynthetic('empty-lookup', 'write', 'minted');
    assert.throws(() => l.assertAlive(), /caught 0/);
    l.noteSynthetic('empty-lookup', 'write', 'caught');
    assert.doesNotThrow(() => l.assertAlive());
  });

  it('canary events never touch checked or findings', () => {
    const l = dispositionLedger();
    l.register('empty-lookup', 'write');
    l.noteSynthetic('empty-lookup', 'write', 'minted');
    l.noteSynthetic('empty-lookup', 'write', 'caught');
    assert.deepEqual(l.report(), [row('empty-lookup', 'write', { synthetic: 1 })]);
  });

  it('a caught canary does not satisfy theorem (i); one real note of any kind does', () => {
    const l = dispositionLedger();
    l.register('empty-lookup', 'write');
    l.noteSynthetic('empty-lookup', 'write', 'minted');
    l.noteSynthetic('empty-lookup', 'write', 'caught');
    deadErrorOf(() => l.assertAlive({ workExisted: true }));
    l.note('empty-lookup', 'write', 'not-applicable');
    assert.doesNotThrow(() => l.assertAlive({ workExisted: true }));
  });
});

// ---------------------------------------------------------------------------
// The parity traps
// ---------------------------------------------------------------------------

describe('ledger: registration', () => {
  it('notes filed before registration are kept and show once the pair is registered', () => {
    const l = dispositionLedger();
    l.note('empty-lookup', 'write', 'checked-fail', 3);
    l.noteSynthetic('empty-lookup', 'write', 'minted');
    assert.deepEqual(l.report(), []);
    l.register('empty-lookup', 'write');
    assert.deepEqual(l.report(), [row('empty-lookup', 'write', { checked: 1, findings: 1, lastFiredAt: 3, synthetic: 1 })]);
  });

  it('registering again neither resets the counts nor moves the row', () => {
    const l = dispositionLedger();
    l.register('a', 'write');
    l.register('b', 'choice');
    l.note('a', 'write', 'checked-pass');
    l.register('a', 'write');
    l.register('b', 'choice');
    assert.deepEqual(l.report(), [row('a', 'write', { checked: 1 }), row('b', 'choice')]);
  });

  it('an unregistered pair is neither reported nor judged', () => {
    const l = dispositionLedger();
    l.noteSynthetic('ghost', 'wire', 'minted');
    l.note('other', 'wire', 'checked-pass');
    assert.deepEqual(l.report(), []);
    assert.doesNotThrow(() => l.assertAlive({ workExisted: true }));
  });

  it('rows are registered in first-registration order, not noting order', () => {
    const l = dispositionLedger();
    l.note('second', 'compose', 'checked-pass');
    l.register('first', 'write');
    l.register('second', 'compose');
    assert.deepEqual(l.report().map((r) => r.check), ['first', 'second']);
  });

  it('one check at two seams is two rows', () => {
    const l = dispositionLedger();
    l.register('invariant-violation', 'wire');
    l.register('invariant-violation', 'compose');
    l.note('invariant-violation', 'compose', 'checked-pass');
    assert.deepEqual(l.report(), [row('invariant-violation', 'wire'), row('invariant-violation', 'compose', { checked: 1 })]);
  });

  it('pairs whose joined names would be equal stay apart', () => {
    const l = dispositionLedger();
    l.register('a b', 'c');
    l.register('a', 'b c');
    l.register('a-', 'write');
    l.register('a', '-write');
    l.note('a b', 'c', 'checked-pass');
    l.note('a-', 'write', 'not-applicable');
    assert.deepEqual(l.report(), [
      row('a b', 'c', { checked: 1 }),
      row('a', 'b c'),
      row('a-', 'write', { notApplicable: 1 }),
      row('a', '-write'),
    ]);
  });
});

describe('ledger: the words it is given', () => {
  it('an unknown disposition counts as unreachable', () => {
    const l = dispositionLedger();
    l.register('x', 'write');
    l.note('x', 'write', 'exploded');
    l.note('x', 'write', undefined);
    l.note('x', 'write', 'Checked-Pass');
    l.note('x', 'write', 'unreachable');
    assert.deepEqual(l.report(), [row('x', 'write', { unreachable: 4 })]);
  });

  it('an unknown synthetic event counts as caught', () => {
    const l = dispositionLedger();
    l.register('x', 'write');
    l.noteSynthetic('x', 'write', 'minted');
    l.noteSynthetic('x', 'write', 'whatever');
    assert.doesNotThrow(() => l.assertAlive());
    assert.equal(l.report()[0].synthetic, 1);
  });

  it('synthetic reports the minted count, not the caught one', () => {
    const l = dispositionLedger();
    l.register('x', 'write');
    l.noteSynthetic('x', 'write', 'minted');
    l.noteSynthetic('x', 'write', 'minted');
    l.noteSynthetic('x', 'write', 'caught');
    assert.equal(l.report()[0].synthetic, 2);
    assert.throws(() => l.assertAlive(), /caught 1/);
    l.noteSynthetic('x', 'write', 'caught');
    l.noteSynthetic('x', 'write', 'caught');
    assert.equal(l.report()[0].synthetic, 2);
    assert.doesNotThrow(() => l.assertAlive());
  });
});

describe('ledger: lastFiredAt', () => {
  it('is set only by checked-fail with an at', () => {
    const l = dispositionLedger();
    l.register('x', 'write');
    l.note('x', 'write', 'checked-pass', 1);
    l.note('x', 'write', 'not-applicable', 2);
    l.note('x', 'write', 'unreachable', 3);
    l.note('x', 'write', 'bogus', 4);
    l.note('x', 'write', 'checked-fail');
    l.note('x', 'write', 'checked-fail', undefined);
    const [only] = l.report();
    assert.equal('lastFiredAt' in only, false);
    assert.equal(only.findings, 2);
  });

  it('the latest fail with an at wins, whatever its value, and a fail without one keeps it', () => {
    const l = dispositionLedger();
    l.register('x', 'write');
    l.note('x', 'write', 'checked-fail', 9);
    l.note('x', 'write', 'checked-fail', 4);
    assert.equal(l.report()[0].lastFiredAt, 4);
    l.note('x', 'write', 'checked-fail');
    assert.equal(l.report()[0].lastFiredAt, 4);
    l.note('x', 'write', 'checked-fail', 0);
    assert.equal(l.report()[0].lastFiredAt, 0);
    l.note('x', 'write', 'checked-fail', -1);
    assert.equal(l.report()[0].lastFiredAt, -1);
    l.note('x', 'write', 'checked-pass', 100);
    assert.equal(l.report()[0].lastFiredAt, -1);
  });
});

describe('ledger: report()', () => {
  it('keys come in the stated order, lastFiredAt in its place once set', () => {
    const l = dispositionLedger();
    l.register('x', 'write');
    assert.deepEqual(Object.keys(l.report()[0]), ROW_KEYS);
    l.note('x', 'write', 'checked-fail', 5);
    assert.deepEqual(Object.keys(l.report()[0]), FIRED_ROW_KEYS);
  });

  it('every call gives a new array of new plain objects', () => {
    const l = dispositionLedger();
    l.register('x', 'write');
    const first = l.report();
    const second = l.report();
    assert.notEqual(first, second);
    assert.notEqual(first[0], second[0]);
    assert.equal(Object.getPrototypeOf(first[0]), Object.prototype);
    assert.ok(Array.isArray(first));
  });

  it('changing a report changes nothing in the ledger', () => {
    const l = dispositionLedger();
    l.register('x', 'write');
    l.noteSynthetic('x', 'write', 'minted');
    const mutated = l.report();
    mutated[0].checked = 99;
    mutated[0].synthetic = 0;
    mutated[0].lastFiredAt = 1;
    mutated.push(row('y', 'choice'));
    assert.deepEqual(l.report(), [row('x', 'write', { synthetic: 1 })]);
    // The canary was not caught: the mutated synthetic did not hide it.
    assert.throws(() => l.assertAlive(), /caught 0/);
  });

  it('an empty ledger reports an empty array and is alive', () => {
    const l = dispositionLedger();
    assert.deepEqual(l.report(), []);
    assert.equal(l.assertAlive({ workExisted: true }), undefined);
  });

  it('two ledgers share nothing', () => {
    const a = dispositionLedger();
    const b = dispositionLedger();
    a.register('x', 'write');
    a.note('x', 'write', 'checked-pass');
    assert.deepEqual(b.report(), []);
    b.register('x', 'write');
    assert.deepEqual(b.report(), [row('x', 'write')]);
  });
});

describe('ledger: assertAlive()', () => {
  it('rule (i) is judged before rule (ii) for one pair', () => {
    const l = dispositionLedger();
    l.register('x', 'write');
    l.noteSynthetic('x', 'write', 'minted');
    const wiring = deadErrorOf(() => l.assertAlive({ workExisted: true }));
    assert.match(wiring.message, /no disposition/);
    assert.doesNotMatch(wiring.message, /caught/);
    const canary = deadErrorOf(() => l.assertAlive());
    assert.match(canary.message, /caught 0/);
  });

  it('pairs are judged in registration order and the first dead one throws', () => {
    const l = dispositionLedger();
    l.register('canary-dead', 'write');
    l.register('wiring-dead', 'choice');
    l.note('canary-dead', 'write', 'checked-pass');
    l.noteSynthetic('canary-dead', 'write', 'minted');
    const first = deadErrorOf(() => l.assertAlive({ workExisted: true }));
    assert.equal(first.check, 'canary-dead');
    assert.match(first.message, /caught 0/);

    const m = dispositionLedger();
    m.register('wiring-dead', 'choice');
    m.register('canary-dead', 'write');
    m.note('canary-dead', 'write', 'checked-pass');
    m.noteSynthetic('canary-dead', 'write', 'minted');
    assert.equal(deadErrorOf(() => m.assertAlive({ workExisted: true })).check, 'wiring-dead');
    // Without work, only the canary rule is left.
    assert.equal(deadErrorOf(() => m.assertAlive()).check, 'canary-dead');
  });

  it('healthy pairs before a dead one do not stop the walk', () => {
    const l = dispositionLedger();
    l.register('fine', 'write');
    l.register('dead', 'compose');
    l.note('fine', 'write', 'checked-pass');
    assert.equal(deadErrorOf(() => l.assertAlive({ workExisted: true })).check, 'dead');
  });

  it('rule (i) fires only for workExisted === true', () => {
    const l = dispositionLedger();
    l.register('x', 'write');
    for (const opts of [undefined, null, {}, { workExisted: false }, { workExisted: 1 }, { workExisted: 'true' }, { workExisted: {} }]) {
      assert.equal(l.assertAlive(opts), undefined, `opts ${JSON.stringify(opts)}`);
    }
    deadErrorOf(() => l.assertAlive({ workExisted: true }));
  });

  it('rule (ii) applies whatever workExisted says', () => {
    const l = dispositionLedger();
    l.register('x', 'write');
    l.note('x', 'write', 'checked-pass');
    l.noteSynthetic('x', 'write', 'minted');
    for (const opts of [undefined, {}, { workExisted: false }, { workExisted: true }]) {
      assert.throws(() => l.assertAlive(opts), /caught 0/);
    }
  });

  it('each of checked, notApplicable and unreachable alone is enough for rule (i)', () => {
    for (const disposition of ['checked-pass', 'checked-fail', 'not-applicable', 'unreachable', 'unknown-word']) {
      const l = dispositionLedger();
      l.register('x', 'write');
      l.note('x', 'write', disposition);
      assert.doesNotThrow(() => l.assertAlive({ workExisted: true }), disposition);
    }
  });
});

describe('CheckerDeadError', () => {
  it('is an Error with its name, pair and a message naming all three parts', () => {
    const e = new CheckerDeadError('dangling-reference', 'compose', 'something specific happened');
    assert.ok(e instanceof Error);
    assert.ok(e instanceof CheckerDeadError);
    assert.equal(e.name, 'CheckerDeadError');
    assert.equal(e.check, 'dangling-reference');
    assert.equal(e.seam, 'compose');
    assert.ok(e.message.startsWith('[integrity] checker_dead:'), e.message);
    assert.match(e.message, /dangling-reference/);
    assert.match(e.message, /compose/);
    assert.match(e.message, /something specific happened/);
    assert.match(String(e), /^CheckerDeadError: \[integrity\] checker_dead:/);
    assert.match(e.stack, /^CheckerDeadError/);
  });

  it('check and seam cannot be reassigned', () => {
    const e = new CheckerDeadError('x', 'write', 'd');
    assert.throws(() => {
      e.check = 'y';
    }, TypeError);
    assert.throws(() => {
      e.seam = 'choice';
    }, TypeError);
    assert.equal(e.check, 'x');
    assert.equal(e.seam, 'write');
  });

  it('the ledger\'s canary case says how many were caught and names the check as given', () => {
    const l = dispositionLedger();
    l.register('unsupported-argument', 'choice');
    l.noteSynthetic('unsupported-argument', 'choice', 'minted');
    const e = deadErrorOf(() => l.assertAlive());
    assert.equal(e.name, 'CheckerDeadError');
    assert.match(e.message, /caught 0/);
    assert.match(e.message, /unsupported-argument/);
    assert.match(e.message, /choice/);
    assert.ok(e.message.startsWith('[integrity] checker_dead:'));
  });
});

// ---------------------------------------------------------------------------
// Finding identity
// ---------------------------------------------------------------------------

/** A finding with the given fields over a small default. */
const finding = (fields = {}) => ({
  kind: 'unsupported-argument',
  seam: 'choice',
  subjects: [{ kind: 'tool', id: 'backup_status' }],
  witnesses: [],
  message: 'a message',
  ...fields,
});

describe('contextErrorIdentity', () => {
  it('is kind, seam, sorted subjects, predicate and epoch, space-separated', () => {
    const e = finding({
      kind: 'dangling-reference',
      seam: 'compose',
      subjects: [{ kind: 'tool', id: 'screen_fire' }, { kind: 'tool', id: 'pan_view' }, { kind: 'tool', id: 'whats_here' }],
      epoch: 4,
    });
    assert.equal(contextErrorIdentity(e), 'dangling-reference @compose [tool pan_view + tool screen_fire + tool whats_here]  4');
    assert.equal(
      contextErrorIdentity(finding({ predicate: 'filter.hosts.0', epoch: 2 })),
      'unsupported-argument @choice [tool backup_status] filter.hosts.0 2',
    );
  });

  it('the order of the subjects does not matter', () => {
    const a = [{ kind: 'tool', id: 'one' }, { kind: 'entity', id: 'two' }, { kind: 'tool', id: 'three' }];
    const keys = [a, [a[2], a[0], a[1]], [a[1], a[2], a[0]]].map((subjects) => contextErrorIdentity(finding({ subjects })));
    assert.equal(new Set(keys).size, 1);
  });

  it('the subjects are sorted by UTF-16 code units, not by locale', () => {
    // localeCompare puts 'a' before 'Z'; code units put 'Z' (0x5A) first.
    assert.ok('tool a'.localeCompare('tool Z') < 0);
    const cases = [
      { ids: ['a', 'Z'], expected: '[tool Z + tool a]' },
      // 'é' (0xE9) comes after 'f' by code unit; a locale puts it next to 'e'.
      { ids: ['é', 'f'], expected: '[tool f + tool é]' },
      // An astral character starts with a high surrogate (0xD83D), which is
      // below U+FFFD even though its code point is far above.
      { ids: ['\uFFFD', '\u{1F600}'], expected: '[tool \u{1F600} + tool \uFFFD]' },
    ];
    for (const { ids, expected } of cases) {
      const key = contextErrorIdentity(finding({ subjects: ids.map((id) => ({ kind: 'tool', id })) }));
      assert.ok(key.includes(expected), `${key} should hold ${expected}`);
    }
  });

  it('an absent, undefined, null or empty predicate gives the same key', () => {
    const absent = contextErrorIdentity(finding({ epoch: 1 }));
    assert.equal(contextErrorIdentity(finding({ predicate: '', epoch: 1 })), absent);
    assert.equal(contextErrorIdentity(finding({ predicate: undefined, epoch: 1 })), absent);
    assert.equal(contextErrorIdentity(finding({ predicate: null, epoch: 1 })), absent);
    assert.notEqual(contextErrorIdentity(finding({ predicate: 'machine', epoch: 1 })), absent);
  });

  it('the epoch is JavaScript number formatting, and empty when absent', () => {
    const tail = (epoch) => contextErrorIdentity(finding({ predicate: 'p', epoch })).slice('unsupported-argument @choice [tool backup_status] p '.length);
    assert.equal(tail(-0), '0');
    assert.equal(tail(0), '0');
    assert.equal(tail(1e21), '1e+21');
    assert.equal(tail(1.5), '1.5');
    assert.equal(tail(NaN), 'NaN');
    assert.equal(tail(-1), '-1');
    assert.equal(tail(Infinity), 'Infinity');
    assert.equal(tail(undefined), '');
    assert.equal(contextErrorIdentity(finding({ predicate: 'p' })), 'unsupported-argument @choice [tool backup_status] p ');
  });

  it('advisory, synthetic, witnesses and message are not part of it', () => {
    const plain = finding({ epoch: 3 });
    const dressed = finding({
      epoch: 3,
      advisory: true,
      synthetic: true,
      witnesses: [{ subject: { kind: 'tool', id: 'x' }, predicate: 'p', value: 'v', stratum: 'asserted', provenance: 'q' }],
      message: 'another message entirely',
    });
    assert.equal(contextErrorIdentity(dressed), contextErrorIdentity(plain));
  });

  it('kind, seam, subjects, predicate and epoch each tell findings apart', () => {
    const base = contextErrorIdentity(finding({ predicate: 'p', epoch: 1 }));
    for (const change of [
      { kind: 'empty-lookup' },
      { seam: 'write' },
      { subjects: [{ kind: 'tool', id: 'other' }] },
      { subjects: [{ kind: 'entity', id: 'backup_status' }] },
      { predicate: 'q' },
      { epoch: 2 },
      { epoch: undefined },
    ]) {
      assert.notEqual(contextErrorIdentity(finding({ predicate: 'p', epoch: 1, ...change })), base, JSON.stringify(change));
    }
  });

  it('no subjects gives empty brackets', () => {
    assert.equal(contextErrorIdentity(finding({ subjects: [], epoch: 1 })), 'unsupported-argument @choice []  1');
  });

  it('does not reorder the finding\'s own subjects', () => {
    const subjects = [{ kind: 'tool', id: 'z' }, { kind: 'tool', id: 'a' }];
    contextErrorIdentity(finding({ subjects }));
    assert.deepEqual(subjects.map((s) => s.id), ['z', 'a']);
  });
});

describe('dedupeContextErrors', () => {
  it('keeps the first of each identity, in input order, as the same objects', () => {
    const a1 = finding({ predicate: 'a', epoch: 1, message: 'first a' });
    const b = finding({ predicate: 'b', epoch: 1 });
    const a2 = finding({ predicate: 'a', epoch: 1, message: 'second a' });
    const c = finding({ predicate: 'a', epoch: 2 });
    const kept = dedupeContextErrors([a1, b, a2, c, b]);
    assert.equal(kept.length, 3);
    assert.equal(kept[0], a1);
    assert.equal(kept[1], b);
    assert.equal(kept[2], c);
  });

  it('returns a new array and leaves the input as it was', () => {
    const a = finding({ epoch: 1 });
    const again = finding({ epoch: 1 });
    const input = [a, again];
    const snapshot = structuredClone(input);
    const kept = dedupeContextErrors(input);
    assert.notEqual(kept, input);
    assert.equal(input.length, 2);
    assert.equal(input[0], a);
    assert.equal(input[1], again);
    assert.deepEqual(input, snapshot);
    const none = [];
    assert.notEqual(dedupeContextErrors(none), none);
    const unique = [a];
    const copy = dedupeContextErrors(unique);
    assert.notEqual(copy, unique);
    assert.deepEqual(copy, unique);
  });

  it('an advisory and a non-advisory finding about the same thing share a key, and the first filed wins', () => {
    const advisory = finding({ kind: 'empty-lookup', seam: 'write', predicate: 'wwpn', epoch: 2, advisory: true, message: 'look here' });
    const real = finding({ kind: 'empty-lookup', seam: 'write', predicate: 'wwpn', epoch: 2, message: 'proven' });
    assert.equal(contextErrorIdentity(advisory), contextErrorIdentity(real));
    assert.deepEqual(dedupeContextErrors([advisory, real]), [advisory]);
    assert.equal(dedupeContextErrors([real, advisory])[0], real);
  });

  it('with the epoch blanked, one defect found on several iterations is one finding', () => {
    const found = [1, 2, 3].map((epoch) => finding({ predicate: 'machine', epoch }));
    assert.equal(dedupeContextErrors(found).length, 3);
    const blanked = found.map((f) => ({ ...f, epoch: undefined }));
    assert.equal(dedupeContextErrors(blanked).length, 1);
  });
});

// ---------------------------------------------------------------------------
// beginIntegrityRun: what needs no native check
// ---------------------------------------------------------------------------

const SEAMGUARD_ROWS = [
  ['empty-lookup', 'write'],
  ['unsupported-argument', 'choice'],
  ['dangling-reference', 'compose'],
];

describe('beginIntegrityRun: registration (prod posture)', () => {
  it('registers the three rows, in order, all armed by default', () => {
    for (const l of [beginIntegrityRun(), beginIntegrityRun({}), beginIntegrityRun({ posture: 'prod' })]) {
      assert.deepEqual(l.report(), SEAMGUARD_ROWS.map(([check, seam]) => row(check, seam)));
    }
  });

  it('returns a fresh ledger each time', () => {
    const a = beginIntegrityRun();
    const b = beginIntegrityRun();
    a.note('empty-lookup', 'write', 'checked-pass');
    assert.equal(b.report()[0].checked, 0);
    assert.equal(typeof a.register, 'function');
    assert.equal(typeof a.noteSynthetic, 'function');
  });

  it('an unarmed check is a row noted not-applicable once', () => {
    const l = beginIntegrityRun({ armed: { 'unsupported-argument': false } });
    assert.deepEqual(l.report(), [
      row('empty-lookup', 'write'),
      row('unsupported-argument', 'choice', { notApplicable: 1 }),
      row('dangling-reference', 'compose'),
    ]);
    const none = beginIntegrityRun({ armed: { 'empty-lookup': false, 'unsupported-argument': false, 'dangling-reference': false } });
    assert.deepEqual(none.report(), SEAMGUARD_ROWS.map(([check, seam]) => row(check, seam, { notApplicable: 1 })));
  });

  it('armed: true and an absent key both arm', () => {
    const l = beginIntegrityRun({ armed: { 'empty-lookup': true, 'dangling-reference': undefined } });
    assert.deepEqual(l.report(), SEAMGUARD_ROWS.map(([check, seam]) => row(check, seam)));
  });

  it('prod posture mints no canary and needs no native check', () => {
    for (const r of beginIntegrityRun({ posture: 'prod' }).report()) assert.equal(r.synthetic, 0);
  });

  it('right after start, unarmed rows pass the wiring rule and an armed row with no notes fails it', () => {
    const none = beginIntegrityRun({ armed: { 'empty-lookup': false, 'unsupported-argument': false, 'dangling-reference': false } });
    assert.equal(none.assertAlive({ workExisted: true }), undefined);
    assert.equal(none.assertAlive(), undefined);

    const all = beginIntegrityRun();
    assert.equal(all.assertAlive(), undefined);
    const e = deadErrorOf(() => all.assertAlive({ workExisted: true }));
    assert.equal(e.check, 'empty-lookup');
    assert.equal(e.seam, 'write');

    const onlyDangling = beginIntegrityRun({ armed: { 'empty-lookup': false, 'unsupported-argument': false } });
    assert.equal(deadErrorOf(() => onlyDangling.assertAlive({ workExisted: true })).check, 'dangling-reference');
    onlyDangling.note('dangling-reference', 'compose', 'checked-pass');
    assert.equal(onlyDangling.assertAlive({ workExisted: true }), undefined);
  });

  it('a bad option is a TypeError that names it', () => {
    const cases = [
      [null, /options/],
      ['dev', /options/],
      [[], /options/],
      [{ posture: 'observe' }, /posture/],
      [{ posture: 'DEV' }, /posture/],
      [{ posture: null }, /posture/],
      [{ armed: null }, /armed/],
      [{ armed: true }, /armed/],
      [{ armed: [] }, /armed/],
      [{ armed: { 'empty-lookup': 'yes' } }, /empty-lookup/],
      [{ armed: { 'dangling-reference': 0 } }, /dangling-reference/],
      [{ armed: { 'unsupported-argument': null } }, /unsupported-argument/],
      [{ armed: { emptyLookup: false } }, /emptyLookup/],
      [{ postur: 'dev' }, /postur/],
    ];
    for (const [options, names] of cases) {
      assert.throws(() => beginIntegrityRun(options), (e) => e instanceof TypeError && names.test(e.message), JSON.stringify(options));
    }
  });
});

// ---------------------------------------------------------------------------
// beginIntegrityRun: dev posture, through a stand-in addon
// ---------------------------------------------------------------------------

const addonPath = require.resolve('../../lib/native.cjs');
const realAddon = require('../../lib/native.cjs');

/**
 * Runs `fn` while lib/native.cjs, the one module of lib/ that loads the
 * addon, answers `overrides` laid over the real addon, then puts the real
 * one back.
 */
function withAddon(overrides, fn) {
  const entry = require.cache[addonPath];
  const saved = entry.exports;
  entry.exports = { ...saved, ...overrides };
  try {
    return fn();
  } finally {
    entry.exports = saved;
  }
}

/** Stand-ins that record their arguments and file one finding each (or none, when `quiet`). */
function recordingChecks(quiet = []) {
  const calls = {};
  const fake = { kind: 'stand-in' };
  return {
    calls,
    overrides: {
      emptyLookupOf(...args) {
        calls.emptyLookupOf = args;
        return { findings: quiet.includes('empty-lookup') ? [] : [fake], disposition: 'checked-fail' };
      },
      unsupportedArgumentsOf(...args) {
        calls.unsupportedArgumentsOf = args;
        return { findings: quiet.includes('unsupported-argument') ? [] : [fake], externalGroundings: [] };
      },
      danglingReferencesOf(...args) {
        calls.danglingReferencesOf = args;
        return quiet.includes('dangling-reference') ? [] : [fake];
      },
    },
  };
}

describe('beginIntegrityRun: dev posture with stand-in checks', () => {
  it('mints one canary per row and notes it caught when the check filed something', () => {
    const { overrides } = recordingChecks();
    const l = withAddon(overrides, () => beginIntegrityRun({ posture: 'dev' }));
    assert.deepEqual(l.report(), SEAMGUARD_ROWS.map(([check, seam]) => row(check, seam, { synthetic: 1 })));
    assert.equal(l.assertAlive(), undefined);
  });

  it('a check that files nothing for its canary is dead, by name, with caught 0', () => {
    for (const [check, seam] of SEAMGUARD_ROWS) {
      const { overrides } = recordingChecks([check]);
      const l = withAddon(overrides, () => beginIntegrityRun({ posture: 'dev' }));
      const e = deadErrorOf(() => l.assertAlive());
      assert.equal(e.check, check);
      assert.equal(e.seam, seam);
      assert.match(e.message, /caught 0/);
    }
  });

  it('unarmed checks get their canary too', () => {
    const { overrides, calls } = recordingChecks();
    const l = withAddon(overrides, () =>
      beginIntegrityRun({ posture: 'dev', armed: { 'empty-lookup': false, 'unsupported-argument': false, 'dangling-reference': false } }),
    );
    assert.deepEqual(l.report(), SEAMGUARD_ROWS.map(([check, seam]) => row(check, seam, { notApplicable: 1, synthetic: 1 })));
    assert.deepEqual(Object.keys(calls).sort(), ['danglingReferencesOf', 'emptyLookupOf', 'unsupportedArgumentsOf']);
    assert.equal(l.assertAlive({ workExisted: true }), undefined);
  });

  it('the fixtures are built to fire, at epoch -1', () => {
    const { overrides, calls } = recordingChecks();
    withAddon(overrides, () => beginIntegrityRun({ posture: 'dev' }));

    const [lookup, produced, lookupEpoch] = calls.emptyLookupOf;
    assert.equal(lookupEpoch, -1);
    assert.deepEqual(lookup.reading, { shape: 'rowset', empty: true, rows: 0 });
    assert.ok(lookup.argumentsFrom.length > 0);
    const lookupValues = Object.values(lookup.args);
    assert.ok(
      produced.some((p) => lookup.argumentsFrom.includes(p.toolName) && lookupValues.some((v) => p.text.includes(v))),
      'a declared producer served the argument',
    );

    const [choices, corpus, choiceEpoch] = calls.unsupportedArgumentsOf;
    assert.equal(choiceEpoch, -1);
    assert.equal(choices.length, 1);
    assert.ok(choices[0].argumentsFrom.length > 0);
    for (const value of Object.values(choices[0].args)) {
      assert.ok(value.trim().length >= 4);
      for (const text of [...corpus.grounded, ...corpus.assistant]) {
        assert.ok(!text.toLowerCase().includes(value.toLowerCase()), 'the frame never served the value');
      }
    }

    const [served, dropped, present, danglingEpoch] = calls.danglingReferencesOf;
    assert.equal(danglingEpoch, -1);
    assert.ok(dropped instanceof Set && present instanceof Set);
    assert.equal(served.length, 1);
    assert.ok(served[0].argumentsFrom.length > 0);
    for (const ground of served[0].argumentsFrom) {
      assert.ok(dropped.has(ground));
      assert.ok(!present.has(ground));
    }
  });

  it('the empty-lookup fixture fires through the real native check', () => {
    const { overrides } = recordingChecks();
    const { emptyLookupOf: _unused, ...others } = overrides;
    const l = withAddon(others, () => beginIntegrityRun({ posture: 'dev' }));
    assert.equal(l.assertAlive(), undefined);
    assert.equal(l.report()[0].synthetic, 1);
  });

  it('an exception from a check propagates', () => {
    const boom = new Error('check exploded');
    const { overrides } = recordingChecks();
    overrides.danglingReferencesOf = () => {
      throw boom;
    };
    assert.throws(() => withAddon(overrides, () => beginIntegrityRun({ posture: 'dev' })), (e) => e === boom);
  });

  it('an addon without a check is a TypeError naming the function', () => {
    const { overrides } = recordingChecks();
    overrides.unsupportedArgumentsOf = undefined;
    assert.throws(
      () => withAddon(overrides, () => beginIntegrityRun({ posture: 'dev' })),
      (e) => e instanceof TypeError && /unsupportedArgumentsOf/.test(e.message),
    );
  });
});

// ---------------------------------------------------------------------------
// beginIntegrityRun: dev posture through the real addon
// ---------------------------------------------------------------------------

const nativeReady =
  typeof realAddon.unsupportedArgumentsOf === 'function' && typeof realAddon.danglingReferencesOf === 'function';
const skipNative = nativeReady
  ? false
  : 'the built addon has no unsupportedArgumentsOf or danglingReferencesOf yet; rebuild it to run these';

describe('beginIntegrityRun: dev posture through the native checks', { skip: skipNative }, () => {
  it('the three rows, in order, each with one canary', () => {
    const l = beginIntegrityRun({ posture: 'dev' });
    assert.deepEqual(l.report(), SEAMGUARD_ROWS.map(([check, seam]) => row(check, seam, { synthetic: 1 })));
  });

  it('every canary is caught, so assertAlive() passes', () => {
    assert.equal(beginIntegrityRun({ posture: 'dev' }).assertAlive(), undefined);
    assert.equal(beginIntegrityRun({ posture: 'dev' }).assertAlive({ workExisted: false }), undefined);
  });

  it('unarmed rows get one not-applicable note and still their canary', () => {
    const l = beginIntegrityRun({ posture: 'dev', armed: { 'empty-lookup': false, 'dangling-reference': false } });
    assert.deepEqual(l.report(), [
      row('empty-lookup', 'write', { notApplicable: 1, synthetic: 1 }),
      row('unsupported-argument', 'choice', { synthetic: 1 }),
      row('dangling-reference', 'compose', { notApplicable: 1, synthetic: 1 }),
    ]);
  });

  it('with work, unarmed rows pass right after start and an armed row with no notes throws', () => {
    const none = beginIntegrityRun({
      posture: 'dev',
      armed: { 'empty-lookup': false, 'unsupported-argument': false, 'dangling-reference': false },
    });
    assert.equal(none.assertAlive({ workExisted: true }), undefined);
    // The canaries prove the functions, not the wiring: an armed row still
    // needs a real note.
    const one = beginIntegrityRun({ posture: 'dev', armed: { 'empty-lookup': false, 'dangling-reference': false } });
    const e = deadErrorOf(() => one.assertAlive({ workExisted: true }));
    assert.equal(e.check, 'unsupported-argument');
    assert.match(e.message, /no disposition/);
    one.note('unsupported-argument', 'choice', 'checked-pass');
    assert.equal(one.assertAlive({ workExisted: true }), undefined);
  });
});
