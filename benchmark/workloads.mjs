// Inputs for the benchmark, all generated from fixed seeds so every run
// measures the same work.

import { rng } from '../__test__/support/helpers.mjs';

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

// ---- the choice seam: a whole run under a sliding window --------------------

const MOONS = ['ganymede', 'callisto', 'europa', 'titan', 'rhea', 'dione', 'tethys', 'mimas', 'oberon', 'miranda',
  'ariel', 'triton', 'phoebe', 'janus', 'pandora', 'hyperion'];
const FLEET_SIZE = 2400;

/** Host `k` of the fleet: a 4-digit number (a bijection of 0..8999) and a moon. */
const hostOf = (k) => `srv-${1000 + ((k * 7919 + 1234) % 9000)}-${MOONS[(k * 5) % MOONS.length]}`;
/** The WWPN of host `k`'s HBA port `p`: fixed per host, as a fabric would report it. */
const wwpnOf = (k, p) => {
  const n = k * 4 + p;
  return `20:00:00:25:B5:${[(n >> 16) & 255, (n >> 8) & 255, n & 255].map((b) => b.toString(16).padStart(2, '0')).join(':')}`.toUpperCase();
};
const hex8 = (r) => Array.from({ length: 4 }, () => hex(r)).join('');
const pad = (n, width) => String(n).padStart(width, '0');
/** A timestamp in one March week, to the second. */
const stamp = (r) => `2025-03-${pad(10 + r.below(7), 2)}T${pad(r.below(24), 2)}:${pad(r.below(60), 2)}:${pad(r.below(60), 2)}Z`;
const cased = (r, text) => r.pick([text, text.toUpperCase(), text.replace(/-([a-z])/g, (_, c) => `-${c.toUpperCase()}`)]);

/**
 * One tool result of about `size` units (never more), as the tool `toolName`
 * serves it, and the values a model could take from it as arguments, each
 * written as the tool wrote it.
 */
function servedBy(toolName, r, size, state) {
  const lines = [];
  const ids = [];
  let length = 0;
  const add = (line) => {
    if (length + line.length + 1 > size && lines.length > 0) return false;
    lines.push(line);
    length += line.length + 1;
    return true;
  };
  const host = () => r.below(FLEET_SIZE);
  if (toolName === 'fleet_inventory') {
    add('HOST                 RACK  U   OS              STATE     LAST SEEN             SERIAL');
    for (;;) {
      const k = host();
      const name = hostOf(k).toUpperCase();
      const serial = `CZ${pad(2300 + r.below(99), 4)}${hex(r).toUpperCase()}${r.pick(['PQ', 'XK', 'M7', 'Z0'])}`;
      const seen = stamp(r);
      const line = `${name.padEnd(21)}${r.pick(['A', 'B', 'C', 'D'])}${pad(r.below(40), 2)}   ${pad(1 + r.below(42), 2)}  ` +
        `${r.pick(['RHEL 9.3', 'RHEL 8.9', 'Ubuntu 22.04', 'ESXi 8.0U2', 'SLES 15 SP5']).padEnd(16)}` +
        `${r.pick(['ONLINE', 'ONLINE', 'ONLINE', 'DEGRADED', 'OFFLINE']).padEnd(10)}${seen}  ${serial}`;
      if (!add(line)) break;
      ids.push({ kind: 'host', value: name }, { kind: 'serial', value: serial }, { kind: 'time', value: seen.slice(0, 16) });
    }
  } else if (toolName === 'fabric_query') {
    for (;;) {
      const k = host();
      const row = {
        wwpn: wwpnOf(k, r.below(4)), host: hostOf(k), switch: `mds-${r.pick(['a', 'b'])}${pad(1 + r.below(8), 2)}`,
        port: `fc${1 + r.below(4)}/${1 + r.below(48)}`, vsan: 10 + r.below(40), zone: `z_${hostOf(k).replace(/-/g, '_')}_${r.pick(['a', 'b'])}`,
        status: r.pick(['logged-in', 'logged-in', 'logged-in', 'offline']), since: stamp(r),
      };
      if (!add(JSON.stringify(row))) break;
      ids.push({ kind: 'wwpn', value: row.wwpn }, { kind: 'host', value: row.host }, { kind: 'time', value: row.since.slice(0, 16) });
    }
  } else if (toolName === 'backup_jobs') {
    for (;;) {
      const k = host();
      const name = cased(r, hostOf(k));
      const row = {
        job_id: `0x${hex8(r)}`, name: `bkp-${hostOf(k)}-tier${1 + r.below(3)}`, host: name,
        policy: r.pick(['nightly', 'weekly', 'hourly-log']), last_run: stamp(r),
        result: r.pick(['success', 'success', 'success', 'partial', 'failed']), bytes: r.below(2 ** 31),
      };
      if (!add(JSON.stringify(row))) break;
      ids.push({ kind: 'job', value: row.job_id }, { kind: 'job', value: row.name }, { kind: 'host', value: name }, { kind: 'policy', value: row.policy });
    }
  } else {
    for (;;) {
      const k = host();
      state.ticket += 1 + r.below(7);
      const row = {
        ticket: `INC-${pad(state.ticket, 7)}`, opened: stamp(r), host: hostOf(k), priority: `P${1 + r.below(4)}`,
        summary: `${r.pick(['Disk latency above 40 ms on', 'Backup overdue for', 'HBA link flapping on', 'Memory ECC errors on', 'Agent not reporting from'])} ${hostOf(k).toUpperCase()}`,
        assignee: r.pick(['storage-oncall', 'linux-ops', 'backup-team', 'dc-ops']),
      };
      if (!add(JSON.stringify(row))) break;
      ids.push({ kind: 'ticket', value: row.ticket }, { kind: 'host', value: row.host }, { kind: 'time', value: row.opened.slice(0, 16) });
    }
  }
  return { text: flat(lines.join('\n')), ids };
}

const SYSTEM_PROMPT = flat([
  'You are the fleet triage assistant for the ACME-East data centre (site code AE1). You help the storage, backup',
  'and Linux operations teams find out what is wrong with a machine and who should act on it.',
  '',
  'Tools: fleet_inventory lists hosts with rack, OS, state and serial; fabric_query lists the SAN logins (WWPN,',
  'switch, port, zone) of hosts; backup_jobs lists backup jobs with their policy and last result; ticket_search',
  'finds incident tickets. backup_status, port_for_device, host_health and ticket_update act on one machine, job or',
  'ticket, and their arguments must be values a lookup tool returned in this conversation.',
  '',
  'Rules: never guess a host name, WWPN, job id or ticket number; if the value you need is no longer in front of you,',
  'call the lookup tool again. Host names look like srv-NNNN-moon. Times are UTC. Escalate P1 incidents to',
  'storage-oncall. Keep answers short: a sentence or two, then a list if there is more than one machine.',
].join('\n'));

const LOOKUPS = ['fleet_inventory', 'fabric_query', 'backup_jobs', 'ticket_search'];
/**
 * The armed tool a model calls after each lookup, with its argument names and
 * the kind of value each wants, and the `enum` values its input schema
 * declares, if any (as `declaredEnumValuesOf` would collect them).
 */
const ARMED = {
  fleet_inventory: { toolName: 'host_health', keys: [['host', 'host'], ['serial', 'serial'], ['since', 'time']] },
  fabric_query: { toolName: 'port_for_device', keys: [['wwpn', 'wwpn'], ['host', 'host'], ['since', 'time']] },
  backup_jobs: {
    toolName: 'backup_status', keys: [['machine', 'host'], ['job', 'job'], ['policy', 'policy']],
    enums: ['nightly', 'weekly', 'hourly-log', 'monthly'],
  },
  ticket_search: { toolName: 'ticket_update', keys: [['ticket', 'ticket'], ['host', 'host'], ['since', 'time']] },
};

/**
 * A value as the assistant re-renders it in its own prose: the same thing in
 * a form no tool serves (the field case's `bkp-4417-ganymede-tier2`), or
 * `undefined` for a kind it quotes as served.
 */
function rendered(r, { kind, value }) {
  const lowered = value.toLowerCase();
  if (kind === 'host') {
    const [, num, moon] = lowered.split('-');
    return r.pick([`${num}-${moon}`, `${moon}-${num}`, `srv${num}-${moon}`, `bkp-${num}-${moon}-tier2`]);
  }
  if (kind === 'job' && lowered.startsWith('bkp-srv-')) return lowered.replace('bkp-srv-', r.pick(['bkp-', 'job-']));
  if (kind === 'wwpn') return lowered.replace(/:/g, '');
  if (kind === 'ticket') return `INC-${Number(value.slice(4))}`;
  if (kind === 'time') return value.replace('T', ' ');
  return undefined;
}

function userTurn(r, recent) {
  const named = recent.filter(({ kind }) => kind === 'host' || kind === 'ticket');
  const id = named.length > 0 && r.chance(0.4) ? r.pick(named).value : undefined;
  return id === undefined
    ? r.pick(['Anything else failing since last night?', 'Can you check the SAN side for the degraded ones?',
      'Which of those have a backup overdue?', 'Thanks. Is there a ticket open for any of them?',
      'Look at the hosts in rack B12 please.', 'What happened with the storage alerts this morning?'])
    : r.pick([`What is the status of ${id}?`, `Can you look at ${id}? The app team says it is slow.`,
      `Is ${id} the one that paged at 02:14?`, `Please check ${id} before the change window.`]);
}

/** A short assistant turn, now and then quoting a value just served or re-rendering one. */
function assistantTurn(r, recent, renderings) {
  const parts = [r.pick(['Checking that now.', 'Here is what I found.', 'Two things stand out.', 'Done.', 'Looking.'])];
  if (recent.length > 0 && r.chance(0.4)) {
    const { value } = r.pick(recent);
    parts.push(r.pick([`${value} is the one to watch`, `I see ${value} in the last result`, `The entry for ${value} looks stale`]) + '.');
  }
  const id = recent.length > 0 && r.chance(0.6) ? r.pick(recent) : undefined;
  const own = id === undefined ? undefined : rendered(r, id);
  if (own !== undefined) {
    renderings.push({ kind: id.kind, value: own });
    parts.push(r.pick([`So ${own} is behind by a day.`, `I would restart ${own} first.`,
      `That matches ${own}, which finished at 02:14.`, `${own} looks like the source of the alert.`]));
  }
  return parts.join(' ');
}

/**
 * A conversation of `count` messages (`{ role, content, toolName? }`, the
 * shape a framework keeps its history in), after a system prompt: user turns,
 * lookups of 2–20 KB each followed by the assistant's tool call, short
 * assistant answers. Each tool result carries `ids`; each assistant turn
 * carries `renderings`, the names it coined itself.
 */
function conversation(seed, count) {
  const r = rng(seed);
  const state = { ticket: 48000 + r.below(1000) };
  const messages = [];
  let recent = [];
  while (messages.length < count) {
    messages.push({ role: 'user', content: flat(userTurn(r, recent)) });
    for (let lookups = 1 + r.below(3); lookups > 0 && messages.length < count; lookups--) {
      const toolName = r.pick(LOOKUPS);
      const { text, ids } = servedBy(toolName, r, 2048 + r.below(18 * 1024 + 1), state);
      messages.push({ role: 'tool', content: text, toolName, ids });
      recent = ids;
      if (messages.length < count) {
        const renderings = [];
        messages.push({ role: 'assistant', content: flat(assistantTurn(r, recent, renderings)), renderings });
      }
    }
  }
  return messages.slice(0, count);
}

/**
 * The armed call a model makes after the tool result at `at`, given the
 * window `[from, at]`: three string arguments, each served by a tool result
 * still in the window (mostly the one just served), taken from an in-window
 * assistant turn only, evicted with the result that served it, or invented.
 * Each value is checked against the window here, so it is what it is meant
 * to be; the intent is recorded as `kinds`.
 */
function armedCall(r, messages, from, at, systemPrompt) {
  const inWindow = messages.slice(from, at + 1);
  const served = [systemPrompt, ...inWindow.filter((m) => m.role !== 'assistant').map((m) => m.content)].map((t) => t.toLowerCase());
  const written = inWindow.filter((m) => m.role === 'assistant').map((m) => m.content.toLowerCase());
  const isServed = (value) => served.some((t) => t.includes(value.toLowerCase()));
  const isWritten = (value) => written.some((t) => t.includes(value.toLowerCase()));
  const asModelWrites = (value) => (r.chance(0.3) ? value.toLowerCase() : value);
  const tools = inWindow.filter((m) => m.role === 'tool');
  const evicted = messages.slice(0, from).filter((m) => m.role === 'tool');
  const renderings = inWindow.flatMap((m) => m.renderings ?? []);
  const { toolName: lookup } = messages[at];
  const { toolName, keys, enums } = ARMED[lookup];

  const valuesOf = (results, kind) => results.flatMap((m) => m.ids.filter((id) => id.kind === kind).map((id) => id.value));
  const pick = (kind) => {
    const roll = r.below(100);
    if (roll < 64) {
      const latest = valuesOf([messages[at]], kind);
      const any = valuesOf(tools, kind);
      return ['served', asModelWrites(r.pick(roll < 48 && latest.length > 0 ? latest : any))];
    }
    if (roll < 78) {
      const own = renderings.filter((name) => name.kind === kind && !isServed(name.value));
      if (own.length > 0) return ['assistant', r.pick(own).value];
    }
    if (roll < 90) {
      const gone = valuesOf(evicted, kind);
      for (let tries = 0; tries < 20 && gone.length > 0; tries++) {
        const value = r.pick(gone);
        if (!isServed(value)) return ['evicted', asModelWrites(value)];
      }
    }
    const invented = {
      host: () => `srv-${pad(r.below(1000), 4)}-${r.pick(MOONS)}`,
      wwpn: () => `20:00:00:25:b5:f${r.below(10)}:${hex(r)}:${hex(r)}`,
      serial: () => `CZ${pad(r.below(1000), 4)}QQ`,
      job: () => `bkp-srv-${pad(r.below(1000), 4)}-tier9`,
      ticket: () => `INC-${pad(9000000 + r.below(99999), 7)}`,
      time: () => `2025-04-${pad(1 + r.below(28), 2)}T0${r.below(10)}:${pad(r.below(60), 2)}`,
      policy: () => r.pick(['monthly', 'Monthly', 'quarterly']),
    }[kind];
    for (;;) {
      const value = invented();
      if (!isServed(value) && !isWritten(value)) return ['invented', value];
    }
  };
  const args = {};
  const kinds = [];
  for (const [key, kind] of keys) {
    const [intent, value] = pick(kind);
    args[key] = value;
    kinds.push(intent);
  }
  const argumentsFrom = r.chance(0.3) ? [lookup, r.pick(LOOKUPS.filter((t) => t !== lookup))] : [lookup];
  return { toolName, toolCallId: `call-${at}`, args, argumentsFrom, ...(enums && { declaredEnums: new Set(enums) }), kinds };
}

/** The call as a framework hands it to the check, without the generator's notes. */
const asChoice = ({ kinds: _kinds, ...call }) => call;

/**
 * A run: `count` messages after a system prompt, under a window of the last
 * `window` messages that evicts the oldest one as each new one enters. After
 * every tool result the model responds with one armed call (`calls[i]` for
 * the message at `i`), judged against the window as it stands then.
 * `intents` counts what the generator meant each argument to be.
 */
export function choiceRun(seed = 700, count = 200, window = 40) {
  const r = rng(seed + 1);
  const messages = conversation(seed, count);
  const calls = [];
  const intents = {};
  messages.forEach((message, i) => {
    if (message.role !== 'tool') return;
    const call = armedCall(r, messages, Math.max(0, i + 1 - window), i, SYSTEM_PROMPT);
    for (const intent of call.kinds) intents[intent] = (intents[intent] ?? 0) + 1;
    calls[i] = asChoice(call);
  });
  return { systemPrompt: SYSTEM_PROMPT, messages: messages.map(asMessage), calls, window, intents };
}

const asMessage = ({ role, content, toolName }) => (role === 'tool' ? { role, content, toolName } : { role, content });

/**
 * One request's frame for the stateless check: the system prompt and the last
 * 19 messages of a longer conversation (so some values were evicted before
 * it), as `{ grounded, assistant }`, and the armed calls of one response to
 * it, `callCount` calls of three string arguments each, made after the last
 * few lookups in the frame.
 */
export function choiceFrame(seed = 900, messageCount = 19, callCount = 5) {
  const r = rng(seed + 1);
  const history = conversation(seed, messageCount + 12);
  const from = history.length - messageCount;
  const frame = history.slice(from);
  const lookups = history.map((m, i) => (m.role === 'tool' && i >= from ? i : -1)).filter((i) => i >= 0);
  const calls = Array.from({ length: callCount }, (_, c) => {
    const at = lookups[lookups.length - 1 - (c % lookups.length)];
    const call = asChoice(armedCall(r, history, from, at, SYSTEM_PROMPT));
    return { ...call, toolCallId: `call-${c}` };
  });
  const corpus = {
    grounded: [SYSTEM_PROMPT, ...frame.filter((m) => m.role !== 'assistant').map((m) => m.content)],
    assistant: frame.filter((m) => m.role === 'assistant').map((m) => m.content),
  };
  return { corpus, calls, messages: frame.map(asMessage) };
}

// ---- the claim seam: an answer judged against a long run ----------------------

/**
 * A run of `steps` tool calls whose results are JSON documents of 2-20 KB
 * (fabric devices, as `toolResult` writes them), after a system prompt and
 * a user message, and an answer of about `size` units that cites values
 * from the first `cited` results, with prose between them and, now and
 * then, a value no result carries. Returns the messages as
 * `{ role, content, toolName? }` and the answer.
 */
export function evidenceRun(seed = 320, steps = 300, size = 200 * 1024, cited = 30) {
  const r = rng(seed);
  const messages = [
    { role: 'system', content: 'You answer questions about the SAN fabric from tool results.' },
    { role: 'user', content: 'Which devices on fabric A are degraded, and on which ports?' },
  ];
  const values = [];
  for (let i = 0; i < steps; i++) {
    const { text } = toolResult(seed + i, 2 * 1024 + r.below(18 * 1024));
    const devices = text.split('\n').filter((line) => line.endsWith('}')).map((line) => JSON.parse(line));
    if (i < cited) for (const d of devices) values.push(d.wwpn, d.host, d.port);
    messages.push({ role: 'assistant', content: `Checking inventory page ${i + 1}.` });
    messages.push({ role: 'tool', content: flat(JSON.stringify({ page: i + 1, devices })), toolName: 'fabric_inventory' });
  }
  const words = ['the', 'device', 'on', 'port', 'is', 'degraded', 'and', 'logged', 'into', 'zone', 'with', 'host', 'at', '32', 'Gbps', '|', '**'];
  let answer = '';
  let invented = 0;
  while (answer.length < size) {
    const roll = r.below(10);
    answer += ' ' + (roll < 3 ? r.pick(values) : roll === 3 && r.below(40) === 0 ? absent(invented++) : r.pick(words));
  }
  return { messages, answer: flat(answer.slice(0, answer.lastIndexOf(' '))) };
}
