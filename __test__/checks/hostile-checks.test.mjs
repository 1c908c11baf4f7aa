// Hostile JavaScript values at the choice-seam and compose-seam entry
// points and at every RunCorpus method: every kind of value in every
// argument position, throwing getters, Proxies, cyclic and 100,000-deep
// arguments, and 32M-unit strings. Every call either returns the
// specification's answer or throws a TypeError or RangeError that names the
// argument (a getter's or a trap's own error passes through unchanged); the
// large and crash-prone cases run in a child process, so that a crash fails
// one test instead of the runner.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { NOT_STRINGS, inChild, isTrapped } from '../support/helpers.mjs';
import { missingOf, modelChoiceVerdicts, verdictsOfAnswer, visibleVerdicts } from '../support/check-model.mjs';

const require = createRequire(import.meta.url);
const { RunCorpus, danglingReferencesOf, declaredEnumValuesOf, readLookupResult, unsupportedArgumentsOf } = require('seamguard');

const THROWS = Symbol('a TypeError naming the argument');

/** Runs `body` in a child process, which must exit cleanly having printed `expected`. */
function childPrints(body, expected, timeout = 180_000) {
  const child = inChild(body, { timeout });
  assert.equal(child.signal, null, child.stderr);
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout.trim(), expected);
}

/**
 * Puts every NOT_STRINGS value in one argument position. `expect(value)`
 * says what is due: `THROWS` (a TypeError or RangeError whose message
 * matches `names`), `{ answer }` (the projected answer, exactly) or
 * `{ either }` (that answer, or the named error). A value whose property
 * reads throw may pass its own error through, unless `strictTrap` says the
 * position must not be read.
 */
function everyValueAt(position, { run, expect, names, project = (x) => x, strictTrap = false }) {
  for (const [index, [kind, value]] of NOT_STRINGS.entries()) {
    const label = `${position} = NOT_STRINGS[${index}] (${kind})`;
    const due = expect(value);
    let answer;
    try {
      answer = run(value);
    } catch (error) {
      if (!strictTrap && isTrapped(value) && error?.message === 'trap must not run') continue;
      assert.ok(due === THROWS || 'either' in due, `${label}: threw ${String(error)} where an answer was due`);
      assert.ok((error instanceof TypeError || error instanceof RangeError) && names.test(error.message), `${label}: ${String(error)}`);
      continue;
    }
    assert.notEqual(due, THROWS, `${label}: answered where a TypeError was due`);
    assert.deepEqual(project(answer), 'either' in due ? due.either : due.answer, label);
  }
}

const isObject = (value) => value !== null && typeof value === 'object';

// The choice seam's base case: one call whose one value nothing served.
const baseCall = () => ({ toolName: 'backup_status', toolCallId: 'call-2', args: { machine: 'ganymede-99' }, argumentsFrom: ['fleet_report'] });
const baseCorpus = () => ({ grounded: ['nothing useful here'], assistant: ['I saw ganymede-99'] });
const choiceView = (answer) => ({ ...verdictsOfAnswer(answer), ...('disposition' in answer && { disposition: answer.disposition }) });
const modelChoice = (calls, corpus) => visibleVerdicts(modelChoiceVerdicts(calls, corpus));
const BASE_CHOICE = () => modelChoice([baseCall()], baseCorpus());

// The compose seam's base case: one tool whose one ground was dropped.
const baseTools = () => [{ name: 'screen_fire', argumentsFrom: ['whats_here'] }];
const BASE_DANGLING = [{ tool: 'screen_fire', missing: ['whats_here'] }];

describe('unsupportedArgumentsOf: every kind of value in every position', () => {
  // Arity decides the defaults, so that an undefined argument stays undefined.
  const run = (...given) => unsupportedArgumentsOf(...given, ...[[baseCall()], baseCorpus(), 1].slice(given.length));

  it('calls', () => everyValueAt('calls', {
    run: (v) => run(v), names: /calls/, project: choiceView,
    expect: (v) => (Array.isArray(v) ? { answer: { findings: [], externalGroundings: [] } } : THROWS),
  }));

  it('calls[0]', () => everyValueAt('calls[0]', { run: (v) => run([v]), names: /calls\[0\]/, expect: () => THROWS }));

  for (const field of ['toolName', 'toolCallId']) {
    it(`calls[0].${field}`, () => everyValueAt(`calls[0].${field}`, {
      run: (v) => run([{ ...baseCall(), [field]: v }]), names: new RegExp(`calls\\[0\\]\\.${field}`), expect: () => THROWS,
    }));
  }

  it('calls[0].args', () => everyValueAt('calls[0].args', {
    run: (v) => run([{ ...baseCall(), args: v }]), names: /calls\[0\]\.args/, project: choiceView,
    expect: (v) => (isObject(v) ? { answer: modelChoice([{ ...baseCall(), args: v }], baseCorpus()) } : THROWS),
  }));

  it('a value inside calls[0].args is judged or skipped, never refused', () => everyValueAt('calls[0].args.machine', {
    run: (v) => run([{ ...baseCall(), args: { machine: v, other: 'europa-12' } }]), names: /calls\[0\]\.args/, project: choiceView,
    expect: (v) => ({ answer: modelChoice([{ ...baseCall(), args: { machine: v, other: 'europa-12' } }], baseCorpus()) }),
  }));

  it('calls[0].argumentsFrom', () => everyValueAt('calls[0].argumentsFrom', {
    run: (v) => run([{ ...baseCall(), argumentsFrom: v }]), names: /calls\[0\]\.argumentsFrom/, project: choiceView,
    expect: (v) => (Array.isArray(v) ? { answer: BASE_CHOICE() } : THROWS),
  }));

  it('calls[0].argumentsFrom[0]', () => everyValueAt('calls[0].argumentsFrom[0]', {
    run: (v) => run([{ ...baseCall(), argumentsFrom: ['fleet_report', v].reverse() }]), names: /calls\[0\]\.argumentsFrom\[0\]/, expect: () => THROWS,
  }));

  it('calls[0].declaredEnums: undefined is no fence; anything but a Set is no fence or a TypeError naming it', () => everyValueAt('calls[0].declaredEnums', {
    run: (v) => run([{ ...baseCall(), declaredEnums: v }]), names: /calls\[0\]\.declaredEnums/, project: choiceView,
    expect: (v) => (v === undefined ? { answer: BASE_CHOICE() } : { either: BASE_CHOICE() }),
  }));

  it('a declaredEnums Set holding a value that is not a string', () => {
    for (const [kind, member] of NOT_STRINGS) {
      let answer;
      try {
        answer = run([{ ...baseCall(), declaredEnums: new Set(['other', member]) }]);
      } catch (error) {
        assert.ok(error instanceof TypeError && /calls\[0\]\.declaredEnums/.test(error.message), `${kind}: ${String(error)}`);
        continue;
      }
      assert.deepEqual(choiceView(answer), BASE_CHOICE(), kind);
    }
  });

  it('corpus', () => everyValueAt('corpus', { run: (v) => run([baseCall()], v), names: /corpus/, expect: () => THROWS }));

  for (const field of ['grounded', 'assistant']) {
    it(`corpus.${field}`, () => everyValueAt(`corpus.${field}`, {
      run: (v) => run([baseCall()], { ...baseCorpus(), [field]: v }), names: new RegExp(`corpus\\.${field}`), project: choiceView,
      expect: (v) => (Array.isArray(v) ? { answer: modelChoice([baseCall()], { ...baseCorpus(), [field]: [] }) } : THROWS),
    }));

    it(`corpus.${field}[2]`, () => everyValueAt(`corpus.${field}[2]`, {
      run: (v) => run([baseCall()], { ...baseCorpus(), [field]: ['a', 'b', v] }), names: new RegExp(`corpus\\.${field}\\[2\\]`), expect: () => THROWS,
    }));
  }

  it('corpus.external: anything that is not an array is absent, never a throw, and never read', () => everyValueAt('corpus.external', {
    run: (v) => run([baseCall()], { ...baseCorpus(), external: v }), names: /^$/, project: choiceView, strictTrap: true,
    expect: () => ({ answer: BASE_CHOICE() }),
  }));

  it('corpus.external[1]: garbage grounds nothing and never throws', () => everyValueAt('corpus.external[1]', {
    run: (v) => run([baseCall()], { ...baseCorpus(), external: [{ value: 'unrelated', source: 'app' }, v] }), names: /^$/, project: choiceView,
    expect: () => ({ answer: BASE_CHOICE() }),
  }));

  for (const field of ['value', 'source']) {
    it(`corpus.external[0].${field}: anything but a usable string drops the entry`, () => everyValueAt(`corpus.external[0].${field}`, {
      run: (v) => run([baseCall()], { ...baseCorpus(), external: [{ value: 'ganymede-99', source: 'app', [field]: v }] }), names: /^$/, project: choiceView,
      expect: () => ({ answer: BASE_CHOICE() }),
    }));
  }

  it('epoch', () => everyValueAt('epoch', {
    run: (v) => run([baseCall()], baseCorpus(), v), names: /epoch/, project: (answer) => [choiceView(answer), answer.findings.map((f) => Object.is(f.epoch, 0) || Number.isNaN(f.epoch))],
    expect: (v) => (typeof v === 'number' ? { answer: [BASE_CHOICE(), [true]] } : THROWS),
  }));

  it('refuses boxed strings and numbers where primitives belong', () => {
    const cases = [
      [() => run([{ ...baseCall(), toolName: new String('backup_status') }]), /calls\[0\]\.toolName/],
      [() => run([{ ...baseCall(), argumentsFrom: [new String('fleet_report')] }]), /calls\[0\]\.argumentsFrom\[0\]/],
      [() => run([baseCall()], { ...baseCorpus(), grounded: [new String('ganymede-99')] }), /corpus\.grounded\[0\]/],
      [() => run([baseCall()], baseCorpus(), new Number(1)), /epoch/],
    ];
    for (const [call, names] of cases) assert.throws(call, (error) => error instanceof TypeError && names.test(error.message));
  });

  it('names the index of the bad call', () => {
    assert.throws(() => run([baseCall(), baseCall(), { ...baseCall(), toolCallId: 7 }]), (error) => error instanceof TypeError && /calls\[2\]\.toolCallId/.test(error.message));
    assert.throws(() => run([baseCall(), { ...baseCall(), argumentsFrom: ['a', 'b', 'c', 4] }]), (error) => error instanceof TypeError && /calls\[1\]\.argumentsFrom\[3\]/.test(error.message));
  });
});

describe('danglingReferencesOf: every kind of value in every position', () => {
  // Arity decides the defaults, so that an undefined argument stays undefined.
  const run = (...given) => danglingReferencesOf(...given, ...[baseTools(), new Set(['whats_here']), new Set(), 1].slice(given.length));

  it('servedTools', () => everyValueAt('servedTools', {
    run: (v) => run(v), names: /servedTools/, project: missingOf, expect: (v) => (Array.isArray(v) ? { answer: [] } : THROWS),
  }));

  it('servedTools[1]', () => everyValueAt('servedTools[1]', { run: (v) => run([...baseTools(), v]), names: /servedTools\[1\]/, expect: () => THROWS }));

  it('servedTools[1].name', () => everyValueAt('servedTools[1].name', {
    run: (v) => run([...baseTools(), { name: v, argumentsFrom: ['whats_here'] }]), names: /servedTools\[1\]\.name/, expect: () => THROWS,
  }));

  it('servedTools[1].argumentsFrom', () => everyValueAt('servedTools[1].argumentsFrom', {
    run: (v) => run([...baseTools(), { name: 'other', argumentsFrom: v }]), names: /servedTools\[1\]\.argumentsFrom/, project: missingOf,
    expect: (v) => (Array.isArray(v) ? { answer: BASE_DANGLING } : THROWS),
  }));

  it('servedTools[0].argumentsFrom[1]', () => everyValueAt('servedTools[0].argumentsFrom[1]', {
    run: (v) => run([{ name: 'screen_fire', argumentsFrom: ['whats_here', v] }]), names: /servedTools\[0\]\.argumentsFrom\[1\]/, expect: () => THROWS,
  }));

  it('droppedResults', () => everyValueAt('droppedResults', { run: (v) => run(baseTools(), v), names: /droppedResults/, expect: () => THROWS }));

  it('presentResults', () => everyValueAt('presentResults', { run: (v) => run(baseTools(), new Set(['whats_here']), v), names: /presentResults/, expect: () => THROWS }));

  it('a has that is not a function is refused, naming the set', () => {
    for (const has of [undefined, null, 'has', 1, {}, true]) {
      assert.throws(() => run(baseTools(), { has }), (error) => error instanceof TypeError && /droppedResults/.test(error.message), String(has));
      assert.throws(() => run(baseTools(), new Set(['whats_here']), { has }), (error) => error instanceof TypeError && /presentResults/.test(error.message), String(has));
    }
  });

  it('a has that answers something but a boolean is read as JavaScript reads it, or refused', () => {
    for (const truthy of [1, 'yes', {}, [], 0, '', null, undefined, NaN, 0n]) {
      let found;
      try {
        found = run(baseTools(), { has: () => true }, { has: () => truthy });
      } catch (error) {
        assert.ok(error instanceof TypeError && /presentResults/.test(error.message), String(error));
        continue;
      }
      assert.deepEqual(missingOf(found), truthy ? [] : BASE_DANGLING, String(truthy));
    }
  });

  it('epoch', () => everyValueAt('epoch', {
    run: (v) => run(baseTools(), new Set(['whats_here']), new Set(), v), names: /epoch/, project: missingOf,
    expect: (v) => (typeof v === 'number' ? { answer: BASE_DANGLING } : THROWS),
  }));
});

describe('RunCorpus methods: every kind of value in every position', () => {
  /** A corpus whose only entry, a whats_here result, was evicted. */
  const corpus = () => {
    const c = new RunCorpus();
    c.push({ toolName: 'whats_here', text: 'IDS: rack-7' });
    c.push({ role: 'assistant', text: 'I saw ganymede-99' });
    c.evict([0]);
    return c;
  };

  it('push(entry)', () => everyValueAt('entry', { run: (v) => corpus().push(v), names: /entry/, expect: () => THROWS }));

  it('push: entry.role', () => everyValueAt('entry.role', {
    run: (v) => corpus().push({ role: v, text: 'x' }), names: /entry\.(role|toolName)/, expect: () => THROWS,
  }));

  it('push: entry.text', () => everyValueAt('entry.text', { run: (v) => corpus().push({ role: 'user', text: v }), names: /entry\.text/, expect: () => THROWS }));

  it('push: entry.toolName on a tool entry', () => everyValueAt('entry.toolName', {
    run: (v) => corpus().push({ role: 'tool', text: 'x', toolName: v }), names: /entry\.toolName/, expect: (v) => (v === undefined ? { answer: 2 } : THROWS),
  }));

  it('push: entry.toolName on any other role is never read', () => everyValueAt('entry.toolName (user)', {
    run: (v) => corpus().push({ role: 'user', text: 'x', toolName: v }), names: /^$/, strictTrap: true, expect: () => ({ answer: 2 }),
  }));

  it('evict(ids)', () => everyValueAt('ids', {
    run: (v) => corpus().evict(v), names: /ids/, expect: (v) => (Array.isArray(v) ? { answer: undefined } : THROWS),
  }));

  it('evict: ids[1]', () => everyValueAt('ids[1]', {
    run: (v) => {
      const c = corpus();
      try {
        return c.evict([1, v]);
      } finally {
        // Refused or not, the valid id 1 is evicted only when the whole list was taken.
        assert.equal(c.windowLength, v === 0 ? 0 : 1);
      }
    },
    names: /ids\[1\]/, expect: (v) => (v === 0 ? { answer: undefined } : THROWS),
  }));

  it('unsupportedArgumentsOf: calls', () => everyValueAt('calls', {
    run: (v) => corpus().unsupportedArgumentsOf(v, {}, 1), names: /calls/, project: choiceView,
    expect: (v) => (Array.isArray(v) ? { answer: { findings: [], externalGroundings: [], disposition: 'not-applicable' } } : THROWS),
  }));

  it('unsupportedArgumentsOf: calls[0]', () => everyValueAt('calls[0]', { run: (v) => corpus().unsupportedArgumentsOf([v], {}, 1), names: /calls\[0\]/, expect: () => THROWS }));

  it('unsupportedArgumentsOf: calls[0].args', () => everyValueAt('calls[0].args', {
    run: (v) => corpus().unsupportedArgumentsOf([{ ...baseCall(), args: v }], {}, 1), names: /calls\[0\]\.args/, project: choiceView,
    expect: (v) => {
      if (!isObject(v)) return THROWS;
      const answer = modelChoice([{ ...baseCall(), args: v }], { grounded: [], assistant: ['I saw ganymede-99'] });
      return { answer: { ...answer, disposition: answer.findings.length ? 'checked-fail' : 'checked-pass' } };
    },
  }));

  it('unsupportedArgumentsOf: request', () => everyValueAt('request', {
    run: (v) => corpus().unsupportedArgumentsOf([baseCall()], v, 1), names: /request/, project: choiceView,
    expect: () => ({ either: { ...modelChoice([baseCall()], { grounded: [], assistant: ['I saw ganymede-99'] }), disposition: 'checked-fail' } }),
  }));

  it('unsupportedArgumentsOf: request.systemPrompt', () => everyValueAt('request.systemPrompt', {
    run: (v) => corpus().unsupportedArgumentsOf([baseCall()], { systemPrompt: v }, 1), names: /systemPrompt/, project: choiceView,
    expect: (v) => (v === undefined ? { answer: { ...modelChoice([baseCall()], { grounded: [], assistant: ['I saw ganymede-99'] }), disposition: 'checked-fail' } } : THROWS),
  }));

  it('unsupportedArgumentsOf: request.external is cleaned, never refused', () => everyValueAt('request.external', {
    run: (v) => corpus().unsupportedArgumentsOf([baseCall()], { external: v }, 1), names: /^$/, project: choiceView, strictTrap: true,
    expect: () => ({ answer: { ...modelChoice([baseCall()], { grounded: [], assistant: ['I saw ganymede-99'] }), disposition: 'checked-fail' } }),
  }));

  it('unsupportedArgumentsOf: epoch', () => everyValueAt('epoch', {
    run: (v) => corpus().unsupportedArgumentsOf([baseCall()], {}, v), names: /epoch/, project: (answer) => answer.disposition,
    expect: (v) => (typeof v === 'number' ? { answer: 'checked-fail' } : THROWS),
  }));

  it('danglingReferencesOf: servedTools', () => everyValueAt('servedTools', {
    run: (v) => corpus().danglingReferencesOf(v, 1), names: /servedTools/, project: (answer) => [missingOf(answer.findings), answer.disposition],
    expect: (v) => (Array.isArray(v) ? { answer: [[], 'not-applicable'] } : THROWS),
  }));

  it('danglingReferencesOf: servedTools[0].argumentsFrom', () => everyValueAt('servedTools[0].argumentsFrom', {
    run: (v) => corpus().danglingReferencesOf([{ name: 'screen_fire', argumentsFrom: v }], 1), names: /servedTools\[0\]\.argumentsFrom/,
    project: (answer) => [missingOf(answer.findings), answer.disposition],
    expect: (v) => (Array.isArray(v) ? { answer: [[], 'not-applicable'] } : THROWS),
  }));

  it('danglingReferencesOf: epoch', () => everyValueAt('epoch', {
    run: (v) => corpus().danglingReferencesOf(baseTools(), v), names: /epoch/, project: (answer) => [missingOf(answer.findings), answer.disposition],
    expect: (v) => (typeof v === 'number' ? { answer: [BASE_DANGLING, 'checked-fail'] } : THROWS),
  }));

  it('emptyLookupOf: call and epoch', () => {
    const call = { toolName: 't', toolCallId: 'c', args: { id: 'rack-7' }, argumentsFrom: ['whats_here'], reading: readLookupResult([], false) };
    // A call whose reading is undefined is not-applicable before anything
    // else is read (docs/checks.md, "empty-lookup").
    everyValueAt('call', {
      run: (v) => corpus().emptyLookupOf(v, 1), names: /call/, project: (answer) => answer.disposition,
      expect: (v) => (isObject(v) ? { either: 'not-applicable' } : THROWS),
    });
    everyValueAt('epoch', {
      run: (v) => corpus().emptyLookupOf(call, v), names: /epoch/, project: (answer) => answer.disposition,
      expect: (v) => (typeof v === 'number' ? { answer: 'unreachable' } : THROWS),
    });
  });

  it('a refused call leaves the corpus as it was', () => {
    const c = corpus();
    for (const [, value] of NOT_STRINGS) {
      try { c.push({ role: value, text: value, toolName: value }); } catch {}
      try { c.evict([0, value]); } catch {}
      try { c.unsupportedArgumentsOf([{ ...baseCall(), toolName: value }], { systemPrompt: value }, value); } catch {}
      try { c.danglingReferencesOf([{ name: value, argumentsFrom: value }], value); } catch {}
    }
    assert.deepEqual([c.length, c.windowLength], [2, 1]);
    assert.equal(c.push({ role: 'user', text: 'next' }), 2);
    assert.equal(c.danglingReferencesOf(baseTools(), 1).disposition, 'checked-fail');
  });
});

describe('throwing getters: the getter\'s own error passes through', () => {
  const THROWN = [new RangeError('getter says no'), new Error('plain'), undefined, null, 42, 'a string', Symbol('thrown'), { custom: true }];
  /** `object` with `key` replaced by a getter that throws `thrown`. */
  const throwingAt = (object, key, thrown) => {
    delete object[key];
    Object.defineProperty(object, key, { enumerable: true, configurable: true, get: () => { throw thrown; } });
    return object;
  };
  const passes = (thrown) => (error) => error === thrown || (Number.isNaN(thrown) && Number.isNaN(error));

  it('in a call, its arguments and its enum set', () => {
    for (const thrown of THROWN) {
      for (const field of ['toolName', 'toolCallId', 'args', 'argumentsFrom', 'declaredEnums']) {
        assert.throws(() => unsupportedArgumentsOf([throwingAt(baseCall(), field, thrown)], baseCorpus(), 1), passes(thrown), field);
      }
      assert.throws(() => unsupportedArgumentsOf([{ ...baseCall(), args: throwingAt({ ok: 'fine-value', later: 'x' }, 'later', thrown) }], baseCorpus(), 1), passes(thrown), 'args.later');
      assert.throws(() => unsupportedArgumentsOf(throwingAt([baseCall()], '0', thrown), baseCorpus(), 1), passes(thrown), 'calls[0]');
      class Sealed extends Set {
        [Symbol.iterator]() {
          throw thrown;
        }
        values() {
          throw thrown;
        }
      }
      // A Set the JavaScript layer cannot read: its own error, or a TypeError naming it.
      try {
        unsupportedArgumentsOf([{ ...baseCall(), declaredEnums: new Sealed(['x']) }], baseCorpus(), 1);
      } catch (error) {
        assert.ok(error === thrown || (error instanceof TypeError && /declaredEnums/.test(error.message)), String(error));
      }
    }
  });

  it('in the corpus and its external entries', () => {
    for (const thrown of THROWN) {
      for (const field of ['grounded', 'assistant', 'external']) {
        assert.throws(() => unsupportedArgumentsOf([baseCall()], throwingAt(baseCorpus(), field, thrown), 1), passes(thrown), field);
      }
      assert.throws(() => unsupportedArgumentsOf([baseCall()], { ...baseCorpus(), grounded: throwingAt(['a', 'b'], '1', thrown) }, 1), passes(thrown), 'grounded[1]');
      for (const field of ['value', 'source']) {
        const entry = throwingAt({ value: 'ganymede-99', source: 'app' }, field, thrown);
        assert.throws(() => unsupportedArgumentsOf([baseCall()], { ...baseCorpus(), external: [entry] }, 1), passes(thrown), `external[0].${field}`);
      }
    }
  });

  it('in served tools and the sets', () => {
    for (const thrown of THROWN) {
      for (const field of ['name', 'argumentsFrom']) {
        assert.throws(() => danglingReferencesOf([throwingAt(baseTools()[0], field, thrown)], new Set(['whats_here']), new Set(), 1), passes(thrown), field);
      }
      assert.throws(() => danglingReferencesOf(baseTools(), throwingAt({}, 'has', thrown), new Set(), 1), passes(thrown), 'dropped.has getter');
      assert.throws(() => danglingReferencesOf(baseTools(), { has() { throw thrown; } }, new Set(), 1), passes(thrown), 'dropped.has');
      assert.throws(() => danglingReferencesOf(baseTools(), new Set(['whats_here']), { has() { throw thrown; } }, 1), passes(thrown), 'present.has');
    }
  });

  it('in RunCorpus entries, ids and requests', () => {
    for (const thrown of THROWN) {
      const c = new RunCorpus();
      c.push({ role: 'user', text: 'ganymede-01' });
      for (const field of ['role', 'text']) assert.throws(() => c.push(throwingAt({ role: 'user', text: 'x' }, field, thrown)), passes(thrown), field);
      assert.throws(() => c.push(throwingAt({ role: 'tool', text: 'x', toolName: 't' }, 'toolName', thrown)), passes(thrown), 'toolName');
      assert.throws(() => c.push(throwingAt({ text: 'x', toolName: 't' }, 'toolName', thrown)), passes(thrown), 'ProducedResult toolName');
      assert.throws(() => c.evict(throwingAt([0], '0', thrown)), passes(thrown), 'ids[0]');
      for (const field of ['systemPrompt', 'external']) {
        assert.throws(() => c.unsupportedArgumentsOf([baseCall()], throwingAt({ systemPrompt: 's', external: [] }, field, thrown), 1), passes(thrown), field);
      }
      assert.throws(() => c.unsupportedArgumentsOf([throwingAt(baseCall(), 'args', thrown)], {}, 1), passes(thrown), 'calls[0].args');
      assert.throws(() => c.danglingReferencesOf([throwingAt(baseTools()[0], 'argumentsFrom', thrown)], 1), passes(thrown), 'servedTools[0].argumentsFrom');
      assert.deepEqual([c.length, c.windowLength], [1, 1]);
    }
  });
});

describe('Proxies', () => {
  it('arrays given as Proxies are arrays, in every position', () => {
    const p = (value) => new Proxy(value, {});
    const plain = unsupportedArgumentsOf([baseCall()], baseCorpus(), 1);
    const proxied = unsupportedArgumentsOf(
      p([p({ ...baseCall(), args: p({ machine: 'ganymede-99', list: p(['x-long-value']) }), argumentsFrom: p(['fleet_report']) })]),
      p({ grounded: p(['nothing useful here']), assistant: p(['I saw ganymede-99']), external: p([p({ value: 'x-long-value', source: 'app' })]) }),
      1,
    );
    assert.deepEqual(proxied.findings, plain.findings);
    assert.deepEqual(proxied.externalGroundings.map((g) => [g.path, g.source]), [['list.0', 'app']]);
    const dangling = danglingReferencesOf(p([p({ name: 'screen_fire', argumentsFrom: p(['whats_here']) })]), p({ has: (n) => n === 'whats_here' }), p({ has: () => false }), 1);
    assert.deepEqual(missingOf(dangling), BASE_DANGLING);
    const c = new RunCorpus();
    c.push(p({ role: 'tool', text: 'x', toolName: 'whats_here' }));
    c.evict(p([0]));
    assert.equal(c.danglingReferencesOf(p(baseTools()), 1).disposition, 'checked-fail');
    assert.equal(c.unsupportedArgumentsOf(p([baseCall()]), p({ systemPrompt: 'ganymede-99' }), 1).disposition, 'checked-pass');
  });

  it('a trap\'s own error passes through wherever a value must be read', () => {
    const boom = new Error('trap');
    const trapped = (target) => new Proxy(target, { get() { throw boom; } });
    const cases = [
      () => unsupportedArgumentsOf(trapped([baseCall()]), baseCorpus(), 1),
      () => unsupportedArgumentsOf([trapped(baseCall())], baseCorpus(), 1),
      () => unsupportedArgumentsOf([{ ...baseCall(), args: { nested: trapped({ a: 'ganymede-99' }) } }], baseCorpus(), 1),
      () => unsupportedArgumentsOf([{ ...baseCall(), argumentsFrom: trapped(['fleet_report']) }], baseCorpus(), 1),
      () => unsupportedArgumentsOf([baseCall()], trapped(baseCorpus()), 1),
      () => unsupportedArgumentsOf([baseCall()], { ...baseCorpus(), grounded: trapped(['a']) }, 1),
      () => unsupportedArgumentsOf([baseCall()], { ...baseCorpus(), external: trapped([]) }, 1),
      () => unsupportedArgumentsOf([baseCall()], { ...baseCorpus(), external: [trapped({ value: 'ganymede-99', source: 's' })] }, 1),
      () => danglingReferencesOf(trapped(baseTools()), new Set(['whats_here']), new Set(), 1),
      () => danglingReferencesOf([trapped(baseTools()[0])], new Set(['whats_here']), new Set(), 1),
      () => danglingReferencesOf(baseTools(), trapped({ has: () => true }), new Set(), 1),
      () => new RunCorpus().push(trapped({ role: 'user', text: 'x' })),
      () => new RunCorpus().evict(trapped([])),
      () => new RunCorpus().unsupportedArgumentsOf([baseCall()], trapped({}), 1),
      () => new RunCorpus().danglingReferencesOf(trapped([]), 1),
    ];
    for (const [index, run] of cases.entries()) assert.throws(run, (error) => error === boom, `case ${index}`);
  });

  it('a revoked Proxy in any position is a TypeError, never a crash', () => {
    const revoked = () => {
      const { proxy, revoke } = Proxy.revocable([], {});
      revoke();
      return proxy;
    };
    const cases = [
      () => unsupportedArgumentsOf(revoked(), baseCorpus(), 1),
      () => unsupportedArgumentsOf([revoked()], baseCorpus(), 1),
      () => unsupportedArgumentsOf([{ ...baseCall(), args: revoked() }], baseCorpus(), 1),
      () => unsupportedArgumentsOf([{ ...baseCall(), argumentsFrom: revoked() }], baseCorpus(), 1),
      () => unsupportedArgumentsOf([baseCall()], revoked(), 1),
      () => unsupportedArgumentsOf([baseCall()], { ...baseCorpus(), grounded: revoked() }, 1),
      () => unsupportedArgumentsOf([baseCall()], { ...baseCorpus(), external: revoked() }, 1),
      () => danglingReferencesOf(revoked(), new Set(), new Set(), 1),
      () => danglingReferencesOf([{ name: 'a', argumentsFrom: revoked() }], new Set(), new Set(), 1),
      () => danglingReferencesOf(baseTools(), revoked(), new Set(), 1),
      () => new RunCorpus().push(revoked()),
      () => new RunCorpus().evict(revoked()),
      () => new RunCorpus().unsupportedArgumentsOf([baseCall()], revoked(), 1),
      () => new RunCorpus().danglingReferencesOf(revoked(), 1),
    ];
    for (const [index, run] of cases.entries()) assert.throws(run, TypeError, `case ${index}`);
  });

  it('reads args through a Proxy as Object.entries sees it', () => {
    const args = new Proxy({}, {
      ownKeys: () => ['b', 'a'],
      getOwnPropertyDescriptor: () => ({ enumerable: true, configurable: true }),
      get: (_, key) => (key === 'a' ? 'alpha-value' : 'bravo-value'),
    });
    const { findings } = unsupportedArgumentsOf([{ ...baseCall(), args }], baseCorpus(), 1);
    assert.deepEqual(findings.map((f) => [f.predicate, f.witnesses[0].value]), [['b', 'bravo-value'], ['a', 'alpha-value']]);
  });
});

describe('cycles and depth', () => {
  it('does not re-enter a container on the current path, and judges every real leaf', () => {
    const args = { v: 'ganymede-99' };
    args.self = args;
    args.list = ['europa-12'];
    args.list.push(args.list, args, 'callisto-3');
    const { findings } = unsupportedArgumentsOf([{ ...baseCall(), args }], baseCorpus(), 1);
    assert.deepEqual(findings.map((f) => f.predicate), ['v', 'list.0', 'list.3']);
    const c = new RunCorpus();
    assert.deepEqual(c.unsupportedArgumentsOf([{ ...baseCall(), args }], {}, 1).findings.map((f) => f.predicate), ['v', 'list.0', 'list.3']);
  });

  it('walks a container shared by two paths on each', () => {
    const shared = { v: 'ganymede-99' };
    const { findings } = unsupportedArgumentsOf([{ ...baseCall(), args: { a: shared, b: [shared] } }], baseCorpus(), 1);
    assert.deepEqual(findings.map((f) => f.predicate), ['a.v', 'b.0.v']);
  });

  it('declaredEnumValuesOf ends a deep or cyclic schema at the depth limit', () => {
    let deep = { enum: ['bottom'] };
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? { p: deep } : [deep];
    assert.equal(declaredEnumValuesOf(deep).size, 0);
    const cyclic = { enum: ['top'], items: null };
    cyclic.items = cyclic;
    assert.deepEqual([...declaredEnumValuesOf(cyclic)], ['top']);
  });

  it('survives args nested 100,000 levels deep, in its own process, and judges the leaf at the bottom', () => {
    childPrints(`
      let args = 'ganymede-deep';
      for (let i = 0; i < 100000; i++) args = i % 2 ? { k: args } : [args];
      const call = { toolName: 't', toolCallId: 'c', args: { root: args }, argumentsFrom: ['p'] };
      const r = m.unsupportedArgumentsOf([call], { grounded: [], assistant: ['GANYMEDE-DEEP'] }, 1);
      const served = m.unsupportedArgumentsOf([call], { grounded: ['ganymede-deep'], assistant: [] }, 1);
      const c = new m.RunCorpus();
      c.push({ role: 'tool', toolName: 'p', text: 'x' });
      const viaCorpus = c.unsupportedArgumentsOf([call], {}, 1);
      console.log(r.findings.length, r.findings[0].predicate.length, r.findings[0].witnesses[1].value.includes('own earlier'), served.findings.length, viaCorpus.disposition);
    `, `1 ${'root'.length + 100000 * 2} true 0 checked-fail`);
  });

  it('survives a deep cycle, in its own process', () => {
    childPrints(`
      const top = { v: 'ganymede-99' };
      let node = top;
      for (let i = 0; i < 50000; i++) { node.next = { back: top, v: 'zz' }; node = node.next; }
      node.loop = top;
      const r = m.unsupportedArgumentsOf([{ toolName: 't', toolCallId: 'c', args: top, argumentsFrom: [] }], { grounded: [], assistant: [] }, 1);
      console.log(r.findings.length, r.findings[0].predicate);
    `, '1 v');
  });

  const unbounded = [
    ['a getter that returns a fresh object forever', 'const deeper = () => ({ get next() { return deeper(); } });', 'deeper()'],
    ['one object shared 2^21 ways', "let shared = { v: 'ganymede-99' }; for (let i = 0; i < 21; i++) shared = [shared, shared];", '{ shared }'],
    ['an array that claims four billion holes', 'const holes = []; holes.length = 2 ** 32 - 1;', '{ holes }'],
  ];
  for (const [name, setup, args] of unbounded) {
    it(`${name}: a RangeError naming calls[i].args, and the process lives`, () => {
      childPrints(`
        ${setup}
        const call = { toolName: 't', toolCallId: 'c', args: ${args}, argumentsFrom: ['p'] };
        const fine = { toolName: 'ok', toolCallId: 'c0', args: { a: 'x' }, argumentsFrom: [] };
        const tell = (run, names) => { try { run(); console.log('answered'); } catch (error) { console.log(error.constructor.name, names.test(error.message)); } };
        tell(() => m.unsupportedArgumentsOf([fine, call], { grounded: ['x'], assistant: [] }, 1), /calls\\[1\\]\\.args/);
        const c = new m.RunCorpus();
        c.push({ role: 'user', text: 'x' });
        tell(() => c.unsupportedArgumentsOf([fine, call], {}, 1), /calls\\[1\\]\\.args/);
        console.log(c.length, c.windowLength);
      `, 'RangeError true\nRangeError true\n1 1');
    });
  }

  it('long lists: 200,000 tools, grounds, served strings and ids', () => {
    const tools = Array.from({ length: 200_000 }, (_, i) => ({ name: `t${i}`, argumentsFrom: [`g${i % 7}`] }));
    const found = danglingReferencesOf(tools, new Set(['g3']), new Set(), 1);
    assert.equal(found.length, tools.filter((tool) => tool.argumentsFrom[0] === 'g3').length);
    const grounds = Array.from({ length: 200_000 }, (_, i) => `g${i % 3}`);
    const wide = danglingReferencesOf([{ name: 'wide', argumentsFrom: grounds }], new Set(['g1']), new Set(), 1);
    assert.equal(wide[0].witnesses.length, grounds.filter((g) => g === 'g1').length);
    const grounded = Array.from({ length: 200_000 }, (_, i) => `served-${i}`);
    const answer = unsupportedArgumentsOf([{ ...baseCall(), args: { a: 'served-199999', b: 'served-200000' } }], { grounded, assistant: [] }, 1);
    assert.deepEqual(answer.findings.map((f) => f.predicate), ['b']);
    assert.match(answer.findings[0].witnesses[1].provenance, /200,?000/);
    const c = new RunCorpus();
    for (let i = 0; i < 200_000; i++) c.push({ role: i % 2 ? 'user' : 'tool', text: `t${i}`, toolName: `n${i % 5}` });
    c.evict(Array.from({ length: 200_000 }, (_, i) => i).filter((i) => i % 4 === 0));
    assert.deepEqual([c.length, c.windowLength], [200_000, 150_000]);
  });
});

describe('32M-unit strings, each in its own process', () => {
  it('a 32M-unit served text, assistant text and external value', () => {
    childPrints(`
      const big = 'x'.repeat(32 * 1024 * 1024);
      const call = (machine) => [{ toolName: 't', toolCallId: 'c', args: { machine }, argumentsFrom: ['p'] }];
      const served = m.unsupportedArgumentsOf(call('needle-at-the-end'), { grounded: [big + 'NEEDLE-AT-THE-END'], assistant: [] }, 1);
      const self = m.unsupportedArgumentsOf(call('needle-at-the-end'), { grounded: [big], assistant: [big + 'Needle-At-The-End'] }, 1);
      const excused = m.unsupportedArgumentsOf(call('needle-at-the-end'), { grounded: [big], assistant: [], external: [{ value: big + 'needle-at-the-end', source: 'app' }] }, 1);
      console.log(served.findings.length, self.findings[0].witnesses[1].value.includes('own earlier'), excused.externalGroundings[0].source);
    `, '0 true app');
  });

  it('a 32M-unit leaf is judged, quoted clipped and kept whole', () => {
    childPrints(`
      const leaf = '  ' + 'ж'.repeat(32 * 1024 * 1024) + 'tail  ';
      const r = m.unsupportedArgumentsOf([{ toolName: 't', toolCallId: 'c', args: { leaf }, argumentsFrom: ['p'] }], { grounded: ['short'], assistant: [] }, 1);
      const [f] = r.findings;
      console.log(r.findings.length, f.witnesses[0].value === leaf, f.message.length < 600, f.message.includes('ж'.repeat(79) + '…'));
    `, '1 true true true');
  });

  it('a 32M-unit tool result pushed to a RunCorpus grounds until it is evicted', () => {
    childPrints(`
      const c = new m.RunCorpus();
      const text = 'Ж'.repeat(16 * 1024 * 1024) + 'HOST-A' + 'y'.repeat(16 * 1024 * 1024);
      c.push({ toolName: 'inventory', text });
      c.push({ role: 'assistant', text: 'z'.repeat(32 * 1024 * 1024) + ' host-b' });
      const call = [{ toolName: 't', toolCallId: 'c', args: { a: 'host-a', b: 'host-b' }, argumentsFrom: ['inventory'] }];
      const before = c.unsupportedArgumentsOf(call, {}, 1);
      const lookup = c.emptyLookupOf({ ...call[0], reading: m.readLookupResult([], false) }, 1);
      c.evict([0, 1]);
      const after = c.unsupportedArgumentsOf(call, {}, 2);
      const dangling = c.danglingReferencesOf([{ name: 't', argumentsFrom: ['inventory'] }], 2);
      console.log(before.findings.map((f) => f.predicate).join(','), lookup.disposition, after.findings.map((f) => f.predicate).join(','), dangling.disposition);
    `, 'b checked-fail a,b checked-fail');
  });

  it('a 4M-unit tool name in a dangling finding', () => {
    childPrints(`
      const name = 'g'.repeat(4 * 1024 * 1024);
      const [f] = m.danglingReferencesOf([{ name: 'act', argumentsFrom: [name] }], new Set([name]), new Set(), 1);
      console.log(f.subjects[1].id === name, f.witnesses[0].value === "results of '" + name + "' evicted, not re-established", f.message.includes(name));
    `, 'true true true');
  });
});

describe('the process survives', () => {
  it('methods called on something that is not a RunCorpus throw', () => {
    const proto = RunCorpus.prototype;
    const getter = (name) => Object.getOwnPropertyDescriptor(proto, name).get;
    for (const stranger of [{}, undefined, null, Object.create(proto), globalThis]) {
      assert.throws(() => proto.push.call(stranger, { role: 'user', text: 'x' }), Error);
      assert.throws(() => proto.evict.call(stranger, []), Error);
      assert.throws(() => proto.clear.call(stranger), Error);
      assert.throws(() => proto.unsupportedArgumentsOf.call(stranger, [], {}, 1), Error);
      assert.throws(() => proto.danglingReferencesOf.call(stranger, [], 1), Error);
      assert.throws(() => proto.emptyLookupOf.call(stranger, {}, 1), Error);
      assert.throws(() => getter('length').call(stranger), Error);
      assert.throws(() => getter('windowLength').call(stranger), Error);
    }
  });

  it('called without new, or on a receiver that is already a corpus: a TypeError, and new corpora work', () => {
    // RunCorpus is an ES class over the generated one, so a call without
    // new throws as any class does; it may neither crash nor turn a
    // stranger into a working corpus.
    childPrints(`
      const stranger = {};
      const c = new m.RunCorpus();
      c.push({ role: 'user', text: 'x' });
      const attempts = [() => m.RunCorpus(), () => m.RunCorpus.call(stranger), () => m.RunCorpus.call(stranger), () => m.RunCorpus.call(c),
        () => Reflect.apply(m.RunCorpus, undefined, []), () => { const R = m.RunCorpus; return R(); }];
      const outcomes = attempts.map((run) => { try { run(); return 'returned'; } catch (error) { return error instanceof TypeError ? 'threw' : 'odd'; } });
      let strangerWorks = true;
      try { m.RunCorpus.prototype.push.call(stranger, { role: 'user', text: 'x' }); } catch { strangerWorks = false; }
      console.log(outcomes.every((o) => o === 'threw'), strangerWorks, c.length, c.push({ role: 'user', text: 'y' }), new m.RunCorpus().push({ role: 'user', text: 'z' }));
    `, 'true false 1 1 0');
  });

  it('getters that call back into the corpus while it judges', () => {
    childPrints(`
      const c = new m.RunCorpus();
      c.push({ role: 'user', text: 'ganymede-01' });
      c.push({ toolName: 'fleet_report', text: 'europa-03' });
      const outcomes = [];
      const attempt = (run) => { try { const r = run(); outcomes.push(r && r.disposition); } catch (error) { outcomes.push(error instanceof Error ? 'Error' : typeof error); } };
      const args = {
        get a() { c.push({ role: 'user', text: 'pushed-mid-walk' }); return 'ganymede-01'; },
        get b() { c.evict([0, 1]); return 'europa-03'; },
        get d() { c.clear(); return 'late-value'; },
        get e() { return c.unsupportedArgumentsOf([{ toolName: 't', toolCallId: 'in', args: { z: 'europa-03' }, argumentsFrom: [] }], {}, 9).disposition; },
      };
      attempt(() => c.unsupportedArgumentsOf([{ toolName: 't', toolCallId: 'c', args, argumentsFrom: ['fleet_report'] }], {}, 1));
      const tools = [{ get name() { c.push({ toolName: 'fleet_report', text: 'again' }); c.evict([c.length]); return 'backup_status'; }, argumentsFrom: ['fleet_report'] }];
      attempt(() => c.danglingReferencesOf(tools, 2));
      attempt(() => c.emptyLookupOf({ toolName: 't', toolCallId: 'c', get args() { c.clear(); return { x: 'europa-03' }; }, argumentsFrom: ['fleet_report'], reading: m.readLookupResult([], false) }, 3));
      c.clear();
      const id = c.push({ role: 'user', text: 'after' });
      console.log(outcomes.length, c.length, c.windowLength, typeof id);
    `, '3 1 1 number');
  });

  it('every entry point with every hostile value', () => {
    childPrints(`
      const boom = () => { throw new Error('boom'); };
      const revoked = Proxy.revocable({}, {}); revoked.revoke();
      const values = [undefined, null, 0, -0, NaN, '', 'x', 'ganymede-99', '\\uD800', true, 1n, Symbol('s'), () => {}, [], {}, [[]], ['x'],
        new Proxy({}, { get: boom, ownKeys: boom, getOwnPropertyDescriptor: boom, has: boom, getPrototypeOf: boom }),
        new Proxy([], { get: boom }), revoked.proxy, Object.create(null), Object.freeze({ a: 'b' }), new Uint8Array(4),
        new String('s'), new Number(1), new Set(['x']), new Map(), { has: boom }, { get toolName() { return boom(); } }];
      let thrown = 0, returned = 0;
      const attempt = (fn) => { try { fn(); returned++; } catch { thrown++; } };
      const c = new m.RunCorpus();
      c.push({ toolName: 'p', text: 'x' });
      for (const a of values) {
        attempt(() => m.declaredEnumValuesOf(a));
        attempt(() => c.push(a));
        attempt(() => c.evict(a));
        for (const b of values) {
          attempt(() => m.unsupportedArgumentsOf(a, b, 1));
          attempt(() => m.unsupportedArgumentsOf([{ toolName: 't', toolCallId: 'c', args: a, argumentsFrom: ['p'], declaredEnums: b }], { grounded: ['x'], assistant: [] }, 1));
          attempt(() => m.unsupportedArgumentsOf([{ toolName: a, toolCallId: b, args: { a, b }, argumentsFrom: [] }], { grounded: [a], assistant: [b], external: [a, b] }, a));
          attempt(() => m.danglingReferencesOf(a, b, b, 1));
          attempt(() => m.danglingReferencesOf([{ name: a, argumentsFrom: [b] }], new Set([b]), a, b));
          attempt(() => c.push({ role: a, text: b, toolName: a }));
          attempt(() => c.evict([a, b]));
          attempt(() => c.unsupportedArgumentsOf([{ toolName: 't', toolCallId: 'c', args: { a }, argumentsFrom: [] }], { systemPrompt: a, external: b }, 1));
          attempt(() => c.unsupportedArgumentsOf(a, b, 1));
          attempt(() => c.danglingReferencesOf(a, b));
          attempt(() => c.danglingReferencesOf([{ name: 't', argumentsFrom: [a, b] }], 1));
          attempt(() => c.emptyLookupOf(a, b));
        }
      }
      console.log(thrown > 0 && returned > 0 ? 'survived' : 'odd', c.windowLength >= 0);
    `, 'survived true');
  });
});
