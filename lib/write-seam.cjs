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
//   leaf is grounded by which result (`emptyLookupJoins`, `corpusJoins`;
//   the first takes its strings as arguments, so they cross in one call,
//   and keeps the lowered texts it is asked to between calls).
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
 * equal its length. V8 answers this with SIMD for a one-byte string, and it
 * lets the native side read the text one byte per unit.
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
 * The encounter from the native compact answer: `null` when unreachable,
 * else four slots per grounded leaf: path, leaf, producer, and the quote
 * packed as `start * 256 + length * 2 + clipped`. Keys are in
 * agentfootprint's order.
 */
function encounterOf(joins, parts, shape, epoch) {
  if (joins === null) return quiet('unreachable');
  const consumerName = parts.toolName;
  const callId = parts.toolCallId;
  const empty = shape === 'absence' ? PROSE.emptyAbsence : PROSE.emptyRowset;
  const findings = [];
  for (let j = 0; j < joins.length; j += 4) {
    const path = joins[j];
    const leaf = joins[j + 1];
    const producerName = joins[j + 2];
    const quote = joins[j + 3];
    const start = Math.floor(quote / 256);
    const quoted = leaf.slice(start, start + ((quote % 256) >> 1)) + (quote % 2 === 1 ? ELLIPSIS : '');
    const slots = [path, callId, consumerName, producerName, empty, quoted, CEILING];
    const witness = (subject, value, provenance) => ({
      subject, predicate: path, value, epoch, stratum: 'asserted', provenance,
    });
    findings.push({
      kind: 'empty-lookup',
      seam: 'write',
      subjects: [tool(consumerName), tool(producerName)],
      predicate: path,
      witnesses: [
        witness(tool(consumerName), leaf, fill.chosenProvenance(slots)),
        witness(tool(producerName), fill.servedValue(slots), fill.servedProvenance(slots)),
        witness(tool(consumerName), fill.emptyValue(slots), fill.emptyProvenance(slots)),
      ],
      epoch,
      advisory: true,
      message: fill.message(slots),
    });
  }
  return { findings, disposition: findings.length > 0 ? 'checked-fail' : 'checked-pass' };
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
  // The declared names, then a name, a text and a code per result: spread
  // as arguments they all cross in one call.
  const items = parts.argumentsFrom.slice();
  const count = lengthOf(produced);
  for (let i = 0; i < count; i++) {
    const entry = produced[i];
    if (!isObject(entry)) throw wrongType(`${who}: produced[${i}]`, 'an object with toolName and text', entry);
    const toolName = entry.toolName;
    if (typeof toolName !== 'string') throw wrongType(`${who}: produced[${i}].toolName`, 'a string', toolName);
    const text = entry.text;
    if (typeof text !== 'string') throw wrongType(`${who}: produced[${i}].text`, 'a string', text);
    items.push(toolName, text, codeOf(text));
  }
  const from = parts.argumentsFrom.length;
  const joins = items.length <= MAX_SPREAD
    ? native.emptyLookupJoins(parts.args, from, ...items)
    : native.emptyLookupJoins(parts.args, from, items);
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
