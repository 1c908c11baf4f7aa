'use strict';
// The accounting surface: the disposition ledger, the error it throws, the
// identity findings are deduplicated by, and seamguard's own run start.
// Everything here is a few counters or a string per call, so it stays in
// JavaScript; a trip into Rust would cost more than the work itself.
//
// The rules are in docs/checks.md ("The ledger"); the typings are in
// typings/header.d.ts, which napi-rs puts at the head of index.d.ts.

// ---------------------------------------------------------------------------
// CheckerDeadError
// ---------------------------------------------------------------------------

/**
 * Thrown by `assertAlive()` for the first registered check found dead. It
 * names the check and the seam, and carries them as `check` and `seam`.
 */
class CheckerDeadError extends Error {
  /**
   * @param {string} check the check that is dead.
   * @param {string} seam the seam it files at.
   * @param {string} detail what was seen, in a few words.
   */
  constructor(check, seam, detail) {
    super(`[integrity] checker_dead: check ${String(check)} at seam ${String(seam)}: ${String(detail)}`);
    Object.defineProperty(this, 'check', { value: check, enumerable: true, writable: false, configurable: false });
    Object.defineProperty(this, 'seam', { value: seam, enumerable: true, writable: false, configurable: false });
  }
}
Object.defineProperty(CheckerDeadError.prototype, 'name', {
  value: 'CheckerDeadError', enumerable: false, writable: true, configurable: true,
});

// ---------------------------------------------------------------------------
// dispositionLedger
// ---------------------------------------------------------------------------

/**
 * A new, empty ledger for one run: one row of counts per (check, seam)
 * pair, reported and judged for the registered pairs only.
 */
function dispositionLedger() {
  // check -> seam -> row. Nested Maps compare keys by SameValueZero, so two
  // different pairs can never share a row (a joined string could: 'a-b' + 'c'
  // and 'a' + '-bc').
  const rows = new Map();
  // The registered rows, in the order they were first registered.
  const registered = [];

  const rowOf = (check, seam) => {
    let bySeam = rows.get(check);
    if (bySeam === undefined) {
      bySeam = new Map();
      rows.set(check, bySeam);
    }
    let row = bySeam.get(seam);
    if (row === undefined) {
      row = {
        check,
        seam,
        checked: 0,
        findings: 0,
        notApplicable: 0,
        unreachable: 0,
        fired: false,
        lastFiredAt: undefined,
        minted: 0,
        caught: 0,
        isRegistered: false,
      };
      bySeam.set(seam, row);
    }
    return row;
  };

  const ledger = {
    /** Declares the pair. Doing it again changes nothing. */
    register(check, seam) {
      const row = rowOf(check, seam);
      if (row.isRegistered) return;
      row.isRegistered = true;
      registered.push(row);
    },

    /**
     * Counts one encounter. A word that is not a known pass, fail or
     * not-applicable counts as unreachable, a misspelling included, and no
     * error is thrown: agentfootprint's own ledger does the same
     * (src/integrity/disposition/ledger.ts, `note`: its final `else` counts
     * any other word as unreachable), and this one keeps parity with it. A
     * misspelled word still shows, as an unreachable count in `report()`.
     */
    note(check, seam, disposition, at) {
      const row = rowOf(check, seam);
      switch (disposition) {
        case 'checked-pass':
          row.checked += 1;
          break;
        case 'checked-fail':
          row.checked += 1;
          row.findings += 1;
          if (at !== undefined) {
            row.fired = true;
            row.lastFiredAt = at;
          }
          break;
        case 'not-applicable':
          row.notApplicable += 1;
          break;
        default:
          row.unreachable += 1;
      }
    },

    /** Counts one dev-posture canary event: `'minted'`, or anything else as caught (agentfootprint's rule too). */
    noteSynthetic(check, seam, event) {
      const row = rowOf(check, seam);
      if (event === 'minted') row.minted += 1;
      else row.caught += 1;
    },

    /** New plain objects, one per registered pair, in registration order. */
    report() {
      return registered.map((row) => {
        const out = {
          check: row.check,
          seam: row.seam,
          checked: row.checked,
          findings: row.findings,
          notApplicable: row.notApplicable,
          unreachable: row.unreachable,
        };
        if (row.fired) out.lastFiredAt = row.lastFiredAt;
        out.synthetic = row.minted;
        return out;
      });
    },

    /** Throws a CheckerDeadError for the first dead registered pair. */
    assertAlive(opts) {
      const workExisted = opts?.workExisted === true;
      for (const row of registered) {
        if (workExisted && row.checked + row.notApplicable + row.unreachable === 0) {
          throw new CheckerDeadError(
            row.check,
            row.seam,
            'rule (i), wiring: no disposition was filed at all although the run had work',
          );
        }
        if (row.minted > 0 && row.caught < row.minted) {
          throw new CheckerDeadError(
            row.check,
            row.seam,
            `rule (ii), canary: ${row.minted} canary fixture(s) handed over, caught ${row.caught}`,
          );
        }
      }
      return undefined;
    },
  };
  return ledger;
}

// ---------------------------------------------------------------------------
// Finding identity
// ---------------------------------------------------------------------------

/**
 * The key a finding is deduplicated by: kind, seam, the subjects in sorted
 * order, the predicate and the epoch. Advisory, synthetic, witnesses and
 * message are left out.
 */
function contextErrorIdentity(e) {
  // The default sort compares UTF-16 code units; no locale is involved.
  const subjects = e.subjects.map((s) => `${s.kind} ${s.id}`).sort().join(' + ');
  const predicate = e.predicate ?? '';
  const epoch = e.epoch === undefined ? '' : String(e.epoch);
  return `${e.kind} @${e.seam} [${subjects}] ${predicate} ${epoch}`;
}

/**
 * A new array with the first finding of each identity, in input order. The
 * findings kept are the input's own objects; the input is left as it was.
 */
function dedupeContextErrors(errors) {
  const seen = new Set();
  const kept = [];
  for (const e of errors) {
    const key = contextErrorIdentity(e);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(e);
  }
  return kept;
}

// ---------------------------------------------------------------------------
// beginIntegrityRun
// ---------------------------------------------------------------------------

// seamguard's three rows, in the order they are registered.
const ROWS = [
  ['empty-lookup', 'write'],
  ['unsupported-argument', 'choice'],
  ['dangling-reference', 'compose'],
];
const CHECKS = ROWS.map(([check]) => check);
const OPTION_KEYS = ['armed', 'posture'];

const isPlainObjectLike = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Reads and checks the options once; returns `{ armed: Map<check, boolean>, dev }`. */
function readRunOptions(options) {
  if (options === undefined) options = {};
  if (!isPlainObjectLike(options)) {
    throw new TypeError('beginIntegrityRun: options must be an object when given');
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) {
      throw new TypeError(`beginIntegrityRun: unknown option ${JSON.stringify(key)} (known: armed, posture)`);
    }
  }
  const armedOption = options.armed;
  const posture = options.posture;

  const armed = new Map(CHECKS.map((check) => [check, true]));
  if (armedOption !== undefined) {
    if (!isPlainObjectLike(armedOption)) {
      throw new TypeError('beginIntegrityRun: options.armed must be an object when given');
    }
    for (const key of Object.keys(armedOption)) {
      if (!CHECKS.includes(key)) {
        throw new TypeError(
          `beginIntegrityRun: options.armed has unknown check ${JSON.stringify(key)} (known: ${CHECKS.join(', ')})`,
        );
      }
    }
    for (const check of CHECKS) {
      const value = armedOption[check];
      if (value === undefined) continue;
      if (typeof value !== 'boolean') {
        throw new TypeError(`beginIntegrityRun: options.armed['${check}'] must be a boolean when given`);
      }
      armed.set(check, value);
    }
  }

  if (posture !== undefined && posture !== 'dev' && posture !== 'prod') {
    throw new TypeError("beginIntegrityRun: options.posture must be 'dev' or 'prod' when given");
  }
  return { armed, dev: posture === 'dev' };
}

/** The native function `name`, or a TypeError saying the loaded addon lacks it. */
function nativeFunction(native, name) {
  const fn = native[name];
  if (typeof fn !== 'function') {
    throw new TypeError(
      `beginIntegrityRun: the loaded seamguard addon has no ${name}(); it is older than this JavaScript layer, rebuild it`,
    );
  }
  return fn;
}

// The canary fixtures, one per check, each built so that the check has
// something to file, and built afresh for every run. Their epoch is -1,
// which no real iteration of a run is numbered.
const CANARY_EPOCH = -1;

/** empty-lookup: the declared producer really served the id, and the lookup answered zero rows. */
function emptyLookupCanary(native) {
  const emptyLookupOf = nativeFunction(native, 'emptyLookupOf');
  const readLookupResult = nativeFunction(native, 'readLookupResult');
  const call = {
    toolName: 'seamguard_canary_lookup',
    toolCallId: 'seamguard-canary',
    args: { target: 'sg-canary-0417-served' },
    argumentsFrom: ['seamguard_canary_inventory'],
    reading: readLookupResult([], false),
  };
  const produced = [
    { toolName: 'seamguard_canary_inventory', text: 'seamguard canary inventory lists sg-canary-0417-served' },
  ];
  return emptyLookupOf(call, produced, CANARY_EPOCH).findings.length > 0;
}

/** unsupported-argument: an armed call whose value nothing in the frame served. */
function unsupportedArgumentCanary(native) {
  const unsupportedArgumentsOf = nativeFunction(native, 'unsupportedArgumentsOf');
  const calls = [
    {
      toolName: 'seamguard_canary_action',
      toolCallId: 'seamguard-canary',
      args: { target: 'sg-canary-0923-unserved' },
      argumentsFrom: ['seamguard_canary_inventory'],
    },
  ];
  const corpus = { grounded: ['seamguard canary frame: no identifier was served here'], assistant: [] };
  return unsupportedArgumentsOf(calls, corpus, CANARY_EPOCH).findings.length > 0;
}

/** dangling-reference: an offered tool whose only ground was dropped and has not come back. */
function danglingReferenceCanary(native) {
  const danglingReferencesOf = nativeFunction(native, 'danglingReferencesOf');
  const served = [{ name: 'seamguard_canary_action', argumentsFrom: ['seamguard_canary_inventory'] }];
  const dropped = new Set(['seamguard_canary_inventory']);
  const present = new Set();
  return danglingReferencesOf(served, dropped, present, CANARY_EPOCH).length > 0;
}

const CANARIES = {
  'empty-lookup': emptyLookupCanary,
  'unsupported-argument': unsupportedArgumentCanary,
  'dangling-reference': danglingReferenceCanary,
};

/**
 * Starts one run's ledger for seamguard's three checks: each is registered
 * (empty-lookup at write, unsupported-argument at choice, dangling-reference
 * at compose), an unarmed one is noted not-applicable once, and in
 * `posture: 'dev'` every registered check, armed or not, runs one canary
 * through its own native function.
 */
function beginIntegrityRun(options) {
  const { armed, dev } = readRunOptions(options);
  const ledger = dispositionLedger();
  for (const [check, seam] of ROWS) {
    ledger.register(check, seam);
    // Not armed is a row that says so, never a silence; the note also keeps
    // the row clear of the wiring rule.
    if (!armed.get(check)) ledger.note(check, seam, 'not-applicable');
  }
  if (!dev) return ledger;

  // Loaded here, so that requiring this module (and the ledger alone) never
  // needs the addon.
  const native = require('../native.cjs');
  // Every registered row gets its canary, unarmed ones included: a row that
  // says not-applicable cannot otherwise be told apart from a dead check.
  // A canary calls the function directly, so it proves the function, not the
  // wiring. An exception from a check is not caught here.
  for (const [check, seam] of ROWS) {
    ledger.noteSynthetic(check, seam, 'minted');
    if (CANARIES[check](native)) ledger.noteSynthetic(check, seam, 'caught');
  }
  return ledger;
}

// One by one, so that Node's CommonJS lexer sees every name for ESM named
// imports.
exports.dispositionLedger = dispositionLedger;
exports.CheckerDeadError = CheckerDeadError;
exports.contextErrorIdentity = contextErrorIdentity;
exports.dedupeContextErrors = dedupeContextErrors;
exports.beginIntegrityRun = beginIntegrityRun;
// Internal: the guard notes its ledger rows by the same pairs.
exports.CHECK_ROWS = ROWS;
