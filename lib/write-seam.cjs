'use strict';
// The write seam's JavaScript layer: `emptyLookupOf` and the corpus's two
// methods, over the native binding.
//
// Why the layer exists: a native call pays for every crossing of the
// boundary. Reading one property of a JavaScript object from Rust, or
// building one result object there, costs far more than the check's own
// work on a small call. So `emptyLookupOf` (and a corpus's) is split:
//
// - here: the argument checks (the same checks, in the same order, with the
//   same TypeError messages as the native function), the two answers the
//   reading decides on its own, reading the call's fields and the produced
//   list once, and building the result objects from a compact answer with
//   the prose templates the native side owns;
// - native: which results are grounds, the leaf walk, the fence, and which
//   leaf is grounded by which result (`emptyLookupReachable` and
//   `emptyLookupFast`, which take their numbers through one shared
//   Float64Array and keep the lowered texts they are asked to between
//   calls; `emptyLookupJoins`, the general path for calls too large for
//   that, which takes its strings as arguments; `corpusJoins`).
//

const native = require('../index.js');

const PROSE = native.emptyLookupProse();
const CEILING = PROSE.ceiling;
const ELLIPSIS = PROSE.ellipsis;

/** The slots a template may name, in the order `encounterOf` fills them. */
const SLOTS = ['path', 'call', 'consumer', 'producer', 'empty', 'quoted', 'ceiling'];

/**
 * Turns a `{slot}` template into a function of the slot values, given as
 * an array in `SLOTS` order (an indexed read stays fast where a read by a
 * different name at each step would not).
 */
function compile(template) {
  const parts = template.split(/\{(\w+)\}/);
  for (let i = 1; i < parts.length; i += 2) {
    const at = SLOTS.indexOf(parts[i]);
    if (at < 0) throw new Error(`seamguard: a prose template names an unknown slot {${parts[i]}}`);
    parts[i] = at;
  }
  return (values) => {
    let text = parts[0];
    for (let i = 1; i < parts.length; i += 2) text += values[parts[i]] + parts[i + 1];
    return text;
  };
}

const fill = Object.fromEntries(PROSE.templates.map(([name, template]) => [name, compile(template)]));

/** `typeof`, with null told apart, as the native messages name a value. */
function describe(value) {
  return value === null ? 'null' : typeof value;
}

function wrongType(what, must, value) {
  return new TypeError(`${what} must be ${must} (got ${describe(value)})`);
}

const isObject = (value) => typeof value === 'object' && value !== null;

/** The length the native side iterates to: `ToNumber(list.length)`, as `i < length` compares it. */
function lengthOf(list) {
  const length = +list.length;
  return length > 0 ? Math.min(Math.ceil(length), 0xffffffff) : 0;
}

/** `call.reading`, checked: `undefined`, or its `empty` and `shape`. */
function readingOf(who, call) {
  const reading = call.reading;
  if (reading === undefined) return undefined;
  if (!isObject(reading)) throw wrongType(`${who}: call.reading`, 'a LookupResultReading or undefined', reading);
  const empty = reading.empty;
  if (typeof empty !== 'boolean') throw wrongType(`${who}: call.reading.empty`, 'a boolean', empty);
  const shape = reading.shape;
  if (shape !== 'rowset' && shape !== 'absence') {
    throw new TypeError(`${who}: call.reading.shape must be 'rowset' or 'absence'`);
  }
  return { empty, shape };
}

/** The call's parts past its reading, checked, in the native order. */
function partsOf(who, call) {
  const toolName = call.toolName;
  if (typeof toolName !== 'string') throw wrongType(`${who}: call.toolName`, 'a string', toolName);
  const toolCallId = call.toolCallId;
  if (typeof toolCallId !== 'string') throw wrongType(`${who}: call.toolCallId`, 'a string', toolCallId);
  const args = call.args;
  if (!isObject(args)) throw wrongType(`${who}: call.args`, 'an object', args);
  const from = call.argumentsFrom;
  if (!Array.isArray(from)) throw wrongType(`${who}: call.argumentsFrom`, 'an array of tool names', from);
  const argumentsFrom = [];
  for (let i = 0, n = lengthOf(from); i < n; i++) {
    const name = from[i];
    if (typeof name !== 'string') throw wrongType(`${who}: call.argumentsFrom[${i}]`, 'a string', name);
    argumentsFrom.push(name);
  }
  return { toolName, toolCallId, args, argumentsFrom };
}

/**
 * Whether every unit of `text` is ASCII: only then does its UTF-8 length
 * equal its length. V8 answers this with SIMD for a one-byte string once
 * the caller is optimised, and it lets the native side read the text one
 * byte per unit. A corpus does not use it: its push reads the text as
 * UTF-16 and narrows it natively.
 */
const isAscii = (text) => Buffer.byteLength(text, 'utf8') === text.length;

/** Past this many items they go as one array: a call's arguments live on the stack. */
const MAX_SPREAD = 4096;

// ---- Ids for result texts the native side keeps lowered ----------------
//
// A framework passes the same result strings to `emptyLookupOf` call after
// call. The first time a text of a useful length is seen, it gets an id;
// the native side keeps its lowered form under that id (an LRU bounded per
// env, see `groundCacheBound`), so a later call that passes the same string
// value is searched without the text being read or lower-cased again. The
// key is the string's value (a Map compares strings by content, and V8
// keeps a string's hash in the string), so equal strings get the same
// answer whether cached or not; ids are never reused, so an id names one
// value for the life of this module.
//
// This map keeps the strings themselves, so it is bounded too: by the same
// number of units as the native side, oldest first out. A string dropped
// here may still be held natively under its old id until the LRU drops it.

/** The bound, in UTF-16 units (the native side owns the default). */
const CACHE_BOUND = native.groundCacheBound(
  process.env.SEAMGUARD_GROUND_CACHE_UNITS === undefined ? undefined : Number(process.env.SEAMGUARD_GROUND_CACHE_UNITS),
);
/**
 * Texts shorter than this are read on every call: the look-up would cost
 * about what it saves. Texts longer than the upper one are never named: V8
 * hashes such a string by its length only, so a look-up could compare many
 * long strings in full.
 */
const CACHE_MIN_UNITS = 128;
const CACHE_MAX_UNITS = 16383;
/** text -> id * 2 + ascii bit. */
const textCodes = new Map();
let textCodeUnits = 0;
let nextTextId = 1;

/** The code the native side takes for `text`: its id (0: none) and its ASCII bit. */
function codeOf(text) {
  const length = text.length;
  if (length < CACHE_MIN_UNITS || length > CACHE_MAX_UNITS || length > CACHE_BOUND) return isAscii(text) ? 1 : 0;
  const known = textCodes.get(text);
  if (known !== undefined) return known;
  const ascii = isAscii(text) ? 1 : 0;
  textCodeUnits += length;
  if (textCodeUnits > CACHE_BOUND) {
    for (const old of textCodes.keys()) {
      textCodes.delete(old);
      textCodeUnits -= old.length;
      if (textCodeUnits <= CACHE_BOUND) break;
    }
  }
  const code = nextTextId++ * 2 + ascii;
  textCodes.set(text, code);
  return code;
}

const quiet = (disposition) => ({ findings: [], disposition });
const tool = (id) => ({ kind: 'tool', id });

/**
 * One finding: `path` and `leaf` of the grounded leaf, the producer's name,
 * and the quote packed as `start * 256 + length * 2 + clipped`. Keys are in
 * agentfootprint's order.
 */
function findingOf(path, leaf, producerName, quote, parts, empty, epoch) {
  const consumerName = parts.toolName;
  const start = Math.floor(quote / 256);
  const quoted = leaf.slice(start, start + ((quote % 256) >> 1)) + (quote % 2 === 1 ? ELLIPSIS : '');
  // The templates run no user code, so one array serves every finding.
  const slots = TEMPLATE_VALUES;
  slots[0] = path;
  slots[1] = parts.toolCallId;
  slots[2] = consumerName;
  slots[3] = producerName;
  slots[4] = empty;
  slots[5] = quoted;
  return {
    kind: 'empty-lookup',
    seam: 'write',
    subjects: [tool(consumerName), tool(producerName)],
    predicate: path,
    witnesses: [
      witnessOf(tool(consumerName), path, leaf, epoch, fill.chosenProvenance(slots)),
      witnessOf(tool(producerName), path, fill.servedValue(slots), epoch, fill.servedProvenance(slots)),
      witnessOf(tool(consumerName), path, fill.emptyValue(slots), epoch, fill.emptyProvenance(slots)),
    ],
    epoch,
    advisory: true,
    message: fill.message(slots),
  };
}

/** The template values, in `SLOTS` order; the ceiling never changes. */
const TEMPLATE_VALUES = ['', '', '', '', '', '', CEILING];

function witnessOf(subject, predicate, value, epoch, provenance) {
  return { subject, predicate, value, epoch, stratum: 'asserted', provenance };
}

const emptyPhrase = (shape) => (shape === 'absence' ? PROSE.emptyAbsence : PROSE.emptyRowset);
const encounter = (findings) => ({ findings, disposition: findings.length > 0 ? 'checked-fail' : 'checked-pass' });

/**
 * The encounter from the native flat answer: `null` when unreachable, else
 * four items per grounded leaf: path, leaf, producer, packed quote.
 */
function encounterOf(joins, parts, shape, epoch) {
  if (joins === null) return quiet('unreachable');
  const empty = emptyPhrase(shape);
  const findings = [];
  for (let j = 0; j < joins.length; j += 4) {
    findings.push(findingOf(joins[j], joins[j + 1], joins[j + 2], joins[j + 3], parts, empty, epoch));
  }
  return encounter(findings);
}

// ---- The fast path (see the binding's `emptyLookupFast`) ---------------
//
// Numbers go through one Float64Array, module-private, instead of crossing
// one by one: tool names by id, each text's code and length. The entries of
// the arguments' root are read here with the built-ins the rules name, once
// the native side has said the call is reachable (an unreachable call's
// arguments are never read, as the rules say), and cross as arguments. When
// every grounded leaf is one of those entries, the joins come back in the
// same array.

const SLOT_COUNT = 8192;
const CALL_SLOTS = new Float64Array(SLOT_COUNT);
const [MAX_NAME_IDS, MAX_NAME_UNITS] = native.emptyLookupNameLimits();
/** Tool name -> id; the native side keeps the names by the same ids. */
let nameIds = new Map();
let nextNameId = 0;
/** Bumped by every fill, so a call can tell that a nested one refilled the slots. */
let fills = 0;
const { isArray } = Array;
const { entries: entriesOf } = Object;

/** The id of a tool name no longer than `MAX_NAME_UNITS`, named natively when new. */
function nameIdOf(name) {
  let id = nameIds.get(name);
  if (id === undefined) {
    id = nextNameId++;
    native.emptyLookupName(id, name);
    nameIds.set(name, id);
  }
  return id;
}

/**
 * Whether a call's names and results fit the fast path: every name short
 * enough to keep by id, all of them at once under the id limit, and the
 * slots large enough.
 */
function fitsFast(from, names) {
  if (from.length + names.length > MAX_NAME_IDS || 4 + from.length + 3 * names.length > SLOT_COUNT) return false;
  for (let i = 0; i < from.length; i++) if (from[i].length > MAX_NAME_UNITS) return false;
  for (let i = 0; i < names.length; i++) if (names[i].length > MAX_NAME_UNITS) return false;
  return true;
}

// The last call's results by position, with their name ids and codes: a
// framework passes the same strings call after call, and a string compared
// with itself is cheaper than a map look-up. Ids name values, so the same
// string always gets the same one.
let lastIds = nameIds;
const lastNames = [];
const lastNameIds = [];
const lastTexts = [];
const lastCodes = [];

/** Writes a call's slots (see the binding); `root` is the root's entries, flat, or null. Returns how many it wrote. */
function fillSlots(from, names, texts, root, spread) {
  fills++;
  // Ids are reused from the start when they run out, never within a fill.
  if (nextNameId + from.length + names.length > MAX_NAME_IDS) {
    nameIds = new Map();
    nextNameId = 0;
  }
  if (lastIds !== nameIds) {
    lastIds = nameIds;
    lastNames.length = 0;
    lastNameIds.length = 0;
  }
  let at = 0;
  CALL_SLOTS[at++] = spread ? 1 : 0;
  CALL_SLOTS[at++] = from.length;
  for (let i = 0; i < from.length; i++) CALL_SLOTS[at++] = nameIdOf(from[i]);
  CALL_SLOTS[at++] = root === null ? -1 : root.length / 2;
  CALL_SLOTS[at++] = names.length;
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    if (lastNames[i] !== name) {
      lastNames[i] = name;
      lastNameIds[i] = nameIdOf(name);
    }
    const text = texts[i];
    if (lastTexts[i] !== text) {
      lastTexts[i] = text;
      lastCodes[i] = codeOf(text);
    }
    CALL_SLOTS[at++] = lastNameIds[i];
    CALL_SLOTS[at++] = lastCodes[i];
    CALL_SLOTS[at++] = text.length;
  }
  // Past this call's results nothing is remembered, so that no text
  // outlives the calls that pass it by more than one.
  lastNames.length = Math.min(lastNames.length, names.length);
  lastNameIds.length = lastNames.length;
  lastTexts.length = Math.min(lastTexts.length, names.length);
  lastCodes.length = lastTexts.length;
  return at;
}

// The native answer to "is any result a ground?" for the last slots asked
// about. Frameworks ask about the same results call after call, so an
// answer is reused while the slots hold the same numbers (names by the same
// ids: the ids restart only with a new map, which clears this too).
let reachableFor = new Float64Array(0);
let reachableIds = nameIds;
let lastReachable = false;

/** Whether the call in the first `length` slots is reachable, as the native side decides. */
function reachable(length) {
  if (reachableIds === nameIds && reachableFor.length === length) {
    let same = true;
    for (let i = 0; i < length && same; i++) same = reachableFor[i] === CALL_SLOTS[i];
    if (same) return lastReachable;
  }
  lastReachable = native.emptyLookupReachable(CALL_SLOTS);
  reachableFor = CALL_SLOTS.slice(0, length);
  reachableIds = nameIds;
  return lastReachable;
}

/** `Array.isArray` then `Object.entries`, as the rules' walk reads a container: null for an array, else the entries flat. */
function rootEntries(args) {
  if (isArray(args)) return null;
  const pairs = entriesOf(args);
  const flat = [];
  for (let i = 0; i < pairs.length; i++) flat.push(pairs[i][0], pairs[i][1]);
  return flat;
}

/**
 * The encounter of a reachable call by the fast path; `filled` is the
 * fill that wrote its slots.
 */
function fastEncounter(parts, names, texts, shape, epoch, filled) {
  const root = rootEntries(parts.args);
  const rootItems = root === null ? 0 : root.length;
  const spread = rootItems + texts.length <= MAX_SPREAD;
  if (fills === filled) {
    // Only the root's count and how the items come are new.
    CALL_SLOTS[0] = spread ? 1 : 0;
    CALL_SLOTS[2 + parts.argumentsFrom.length] = root === null ? -1 : root.length / 2;
  } else {
    // A getter read above ran a check of its own, which filled the slots.
    fillSlots(parts.argumentsFrom, names, texts, root, spread);
  }
  let answer;
  if (spread) {
    // The root's entries, then the texts, as one list of arguments.
    const items = root === null ? texts : root;
    if (root !== null) for (let i = 0; i < texts.length; i++) items.push(texts[i]);
    answer = native.emptyLookupFast(CALL_SLOTS, parts.args, ...items);
  } else {
    answer = native.emptyLookupFast(CALL_SLOTS, parts.args, root ?? [], texts);
  }
  if (typeof answer !== 'number') return encounterOf(answer, parts, shape, epoch);
  const empty = emptyPhrase(shape);
  const findings = [];
  for (let j = 0; j < answer; j++) {
    const entry = CALL_SLOTS[3 * j];
    findings.push(findingOf(root[2 * entry], root[2 * entry + 1], names[CALL_SLOTS[3 * j + 1]], CALL_SLOTS[3 * j + 2], parts, empty, epoch));
  }
  return encounter(findings);
}

/** Judges one finished call to an armed tool (see index.d.ts). */
function emptyLookupOf(call, produced, epoch) {
  const who = 'emptyLookupOf';
  if (!isObject(call)) throw wrongType(`${who}: call`, 'an EmptyLookupCall object', call);
  if (!Array.isArray(produced)) throw wrongType(`${who}: produced`, 'an array of { toolName, text }', produced);
  if (typeof epoch !== 'number') throw wrongType(`${who}: epoch`, 'a number', epoch);
  const reading = readingOf(who, call);
  if (reading === undefined) return quiet('not-applicable');
  if (!reading.empty) return quiet('checked-pass');
  const parts = partsOf(who, call);
  const count = lengthOf(produced);
  const names = [];
  const texts = [];
  for (let i = 0; i < count; i++) {
    const entry = produced[i];
    if (!isObject(entry)) throw wrongType(`${who}: produced[${i}]`, 'an object with toolName and text', entry);
    const toolName = entry.toolName;
    if (typeof toolName !== 'string') throw wrongType(`${who}: produced[${i}].toolName`, 'a string', toolName);
    const text = entry.text;
    if (typeof text !== 'string') throw wrongType(`${who}: produced[${i}].text`, 'a string', text);
    names.push(toolName);
    texts.push(text);
  }
  const from = parts.argumentsFrom;
  if (fitsFast(from, names)) {
    const length = fillSlots(from, names, texts, null, true);
    if (!reachable(length)) return quiet('unreachable');
    return fastEncounter(parts, names, texts, reading.shape, epoch, fills);
  }
  // The declared names, then a name, a text and a code per result: spread
  // as arguments they all cross in one call.
  const items = from.slice();
  for (let i = 0; i < count; i++) items.push(names[i], texts[i], codeOf(texts[i]));
  const joins = items.length <= MAX_SPREAD
    ? native.emptyLookupJoins(parts.args, from.length, ...items)
    : native.emptyLookupJoins(parts.args, from.length, items);
  return encounterOf(joins, parts, reading.shape, epoch);
}

// A corpus takes the same paths; the class stays the generated one, and
// only these two methods of its prototype are replaced.
const { ProducedCorpus } = native;
const replaceMethod = (name, value) => Object.defineProperty(ProducedCorpus.prototype, name, {
  ...Object.getOwnPropertyDescriptor(ProducedCorpus.prototype, name),
  value,
});

replaceMethod('push', function push(result) {
  const who = 'ProducedCorpus.push';
  if (!isObject(result)) throw wrongType(`${who}: result`, 'an object with toolName and text', result);
  const toolName = result.toolName;
  if (typeof toolName !== 'string') throw wrongType(`${who}: result.toolName`, 'a string', toolName);
  const text = result.text;
  if (typeof text !== 'string') throw wrongType(`${who}: result.text`, 'a string', text);
  native.corpusPush(this, toolName, text);
});

replaceMethod('emptyLookupOf', function emptyLookupOf(call, epoch) {
  const who = 'ProducedCorpus.emptyLookupOf';
  if (!isObject(call)) throw wrongType(`${who}: call`, 'an EmptyLookupCall object', call);
  if (typeof epoch !== 'number') throw wrongType(`${who}: epoch`, 'a number', epoch);
  const reading = readingOf(who, call);
  if (reading === undefined) return quiet('not-applicable');
  if (!reading.empty) return quiet('checked-pass');
  const parts = partsOf(who, call);
  const joins = native.corpusJoins(this, parts.args, parts.argumentsFrom);
  return encounterOf(joins, parts, reading.shape, epoch);
});

module.exports = { emptyLookupOf, ProducedCorpus };
