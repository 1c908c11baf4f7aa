// Inputs for the benchmark, all generated from fixed seeds so every run
// measures the same work.

import { rng } from '../__test__/helpers.mjs';

export { rng };

const hex = (r) => r.below(256).toString(16).padStart(2, '0');

/**
 * A tool result of about `size` UTF-16 units: JSON lines describing fabric
 * devices, in mixed case, as an inventory tool would serve them. Returns the
 * text and the identifiers it carries, so calls can look them up.
 */
export function toolResult(seed, size) {
  const r = rng(seed);
  const ids = [];
  const lines = [];
  let length = 0;
  while (length < size) {
    const wwpn = `20:00:00:25:B5:${hex(r)}:${hex(r)}:${hex(r)}`.toUpperCase();
    const host = `Host-${r.pick(['Rack', 'Row', 'Pod'])}${r.below(40)}-${seed}-${r.below(100000)}`;
    ids.push(wwpn, host);
    const line = JSON.stringify({
      wwpn, host, port: `fc${r.below(4)}/${r.below(48)}`, status: r.pick(['ONLINE', 'Offline', 'degraded']),
      zone: `Zone_${r.pick(['A', 'B', 'C'])}${r.below(100)}`, speedGbps: r.pick([8, 16, 32]),
    });
    lines.push(line);
    length += line.length + 1;
  }
  // Flat strings, as JSON.stringify or a decoder hands them to a run (a
  // `.slice()` would leave a view into a longer string).
  return { text: flat(lines.join('\n').slice(0, size)), ids: ids.slice(0, -2).map(flat) };
}

/** A flat copy of `text`. */
const flat = (text) => JSON.parse(JSON.stringify(text));

/** A value that occurs in no generated result. */
export const absent = (i) => `c0:ff:ee:${String(i).padStart(4, '0')}:missing`;

/**
 * `count` results of `size` units each, alternating between two declared
 * producers and one undeclared one.
 */
export function producedRun(count, size, seed) {
  const tools = ['fabric_inventory', 'cmdb', 'ticket_search'];
  return Array.from({ length: count }, (_, i) => {
    const { text, ids } = toolResult(seed + i, size);
    return { toolName: tools[i % 3], text, ids };
  });
}

export const ARGUMENTS_FROM = ['fabric_inventory', 'cmdb'];

/** An armed call whose lookup came back empty. */
export function emptyCall(i, args, reading = { shape: 'rowset', empty: true, rows: 0 }) {
  return { toolName: 'port_for_device', toolCallId: `call-${i}`, args, argumentsFrom: ARGUMENTS_FROM, reading };
}

/** The id `k` of result `index`, upper- or lower-cased as a model might write it. */
export function idFrom(produced, index, k) {
  const ids = produced[index].ids;
  const id = ids[k % ids.length];
  return k % 2 ? id.toLowerCase() : id;
}

/** Streamed answer text: prose with code, tables and, now and then, leaked markup. */
export function answerText(size, seed) {
  const r = rng(seed);
  const words = ['the', 'port', 'is', 'logged', 'in', 'fabric', 'A', 'and', 'zone', 'members', 'are', 'listed', 'below', 'with', 'their', 'status', 'x < y', 'a|b', '->', 'ok'];
  const markup = [
    "<|tool_call_start|>[port_for_device(wwpn='20:00:00:25:b5:aa:00:1f')]<|tool_call_end|>",
    '<|tool_call|>', '<|tool_calls|>', '<|tool_call_start|>[inventory()]\n<|tool_call_end|>',
  ];
  let text = '';
  while (text.length < size) {
    text += r.below(60) === 0 ? r.pick(markup) : (r.below(12) === 0 ? '\n' : ' ') + r.pick(words);
  }
  return text.slice(0, size);
}

/** Cuts `text` into chunks of `min`..`max` UTF-16 units. */
export function chunked(text, min, max, seed) {
  const r = rng(seed);
  const chunks = [];
  for (let at = 0; at < text.length; ) {
    const end = Math.min(text.length, at + min + r.below(max - min + 1));
    chunks.push(text.slice(at, end));
    at = end;
  }
  return chunks;
}
