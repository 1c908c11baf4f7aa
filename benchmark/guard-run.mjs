// The guard's run row: an AI SDK agent run of 300 steps through
// generateText, with a scripted mock model, each step one call of an armed
// tool with three string arguments and a tool result of 2-20 KB, no window.
// Two guards, each an AI SDK middleware, in one process:
// - seamguard's `createGuard`;
// - `jsGuard` below: the same three checks written in plain JavaScript the
//   way a framework writes them (agentfootprint's way): at every model call
//   it rebuilds the frame from the prompt, renders and lowers every text
//   again, and searches it (baseline-checks.mjs, baseline-empty-lookup.mjs).
// Each guard's own time is measured inside its middleware, the model's and
// the tools' time left out, step by step.
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createRequire } from 'node:module';
import * as checks from './baseline-checks.mjs';
import * as lookup from './baseline-empty-lookup.mjs';
import { rng } from './workloads.mjs';

const require = createRequire(import.meta.url);
const { createGuard } = require('seamguard/ai-sdk');
const { contextErrorIdentity } = require('seamguard');

export const STEPS = 300;
const ARMED = { host_detail: ['host_detail', 'inventory'] };

// ---- the workload -----------------------------------------------------------

const hex = (r, n) => Array.from({ length: n }, () => r.below(16).toString(16)).join('');
const NAMES = ['ganymede', 'callisto', 'europa', 'io', 'titan', 'rhea', 'dione', 'tethys'];

/** The fleet the results describe, and each step's result and call, from one seed. */
export function guardRunWorkload(seed = 7) {
  const r = rng(seed);
  const fleet = Array.from({ length: 2400 }, (_, i) => ({
    host: `SRV-${String(1000 + i)}-${r.pick(NAMES).toUpperCase()}`,
    wwpn: `20:00:00:25:b5:${hex(r, 2)}:${hex(r, 2)}:${hex(r, 2)}`,
    rack: `R${r.below(90)}-U${r.below(42)}`,
  }));
  const rowOf = (device) => ({
    ...device,
    serial: hex(r, 12),
    zone: `zone_${r.below(400)}`,
    seen: `2026-11-${String(1 + r.below(28)).padStart(2, '0')}T0${r.below(10)}:${r.below(6)}0:00Z`,
    state: r.pick(['online', 'degraded', 'offline']),
  });
  const results = [];
  const calls = [];
  for (let step = 0; step < STEPS; step++) {
    // The arguments: mostly values from the result just served, some from an
    // older one, a few no result holds.
    const source = step === 0 ? [fleet[0]] : r.below(10) < 7 ? results[step - 1] : results[r.below(step)];
    const row = source.length > 0 ? r.pick(source) : r.pick(fleet);
    const invent = r.below(10) === 0;
    calls.push({
      host: invent ? `SRV-${9000 + step}-NOWHERE` : row.host.toLowerCase(),
      wwpn: row.wwpn,
      rack: invent ? `R${200 + step}-U0` : row.rack,
    });
    // A result of 10-100 rows (2-20 KB); one in twenty comes back empty.
    const empty = r.below(20) === 0;
    results.push(empty ? [] : Array.from({ length: 10 + r.below(91) }, () => rowOf(r.pick(fleet))));
  }
  const system = `You triage a SAN fabric. The inventory lists ${fleet[0].host} (${fleet[0].wwpn}, rack ${fleet[0].rack}).`;
  return { system, results, calls };
}

// ---- a guard written the way a framework writes it ---------------------------

/** The text a message reads as, rendered again at every call. */
function renderedEntries(message) {
  switch (message.role) {
    case 'system':
      return [{ role: 'system', content: message.content }];
    case 'user':
      return [{ role: 'user', content: message.content.map((part) => part.text ?? '').join('\n') }];
    case 'assistant': {
      let content = message.content.filter((part) => part.type === 'text').map((part) => part.text).join('\n');
      for (const part of message.content) if (part.type === 'tool-call') content += `\n${JSON.stringify(part.input)}`;
      return [{ role: 'assistant', content }];
    }
    case 'tool':
      return message.content
        .filter((part) => part.type === 'tool-result')
        .map((part) => ({
          role: 'tool', toolName: part.toolName, toolCallId: part.toolCallId, value: part.output.value,
          content: typeof part.output.value === 'string' ? part.output.value : JSON.stringify(part.output.value),
        }));
    default:
      return [];
  }
}

/** The three checks in plain JavaScript, inside an AI SDK middleware. */
export function jsGuard({ argumentsFrom }) {
  const findings = [];
  const identities = new Set();
  const judged = new Set();
  const everPresent = new Set();
  let epoch = -1;
  const file = (list) => {
    for (const finding of list) {
      const identity = contextErrorIdentity({ ...finding, epoch: undefined });
      if (identities.has(identity)) continue;
      identities.add(identity);
      findings.push(finding);
    }
  };
  const middleware = {
    specificationVersion: 'v3',
    async wrapGenerate({ doGenerate, params }) {
      epoch += 1;
      const entries = params.prompt.flatMap(renderedEntries);
      const calls = new Map();
      for (const message of params.prompt) {
        if (message.role !== 'assistant') continue;
        for (const part of message.content) if (part.type === 'tool-call') calls.set(part.toolCallId, part);
      }
      const results = entries.filter((entry) => entry.role === 'tool');
      // Write seam: each armed result the model has not read yet.
      for (const [index, result] of results.entries()) {
        if (argumentsFrom[result.toolName] === undefined || judged.has(result.toolCallId)) continue;
        judged.add(result.toolCallId);
        const call = calls.get(result.toolCallId);
        const produced = results.slice(0, index).map((entry) => ({ toolName: entry.toolName, text: entry.content }));
        file(lookup.emptyLookupOf({
          toolName: result.toolName, toolCallId: result.toolCallId, args: call.input,
          argumentsFrom: argumentsFrom[result.toolName], reading: lookup.readLookupResult(result.value, false),
        }, produced, epoch).findings);
      }
      // Compose seam: the dropped names, rebuilt from what this prompt lacks.
      const present = new Set(results.map((entry) => entry.toolName));
      const dropped = new Set([...everPresent].filter((name) => !present.has(name)));
      for (const name of present) everPresent.add(name);
      const served = (params.tools ?? []).filter((t) => argumentsFrom[t.name] !== undefined)
        .map((t) => ({ name: t.name, argumentsFrom: argumentsFrom[t.name] }));
      file(checks.danglingReferencesOf(served, dropped, present, epoch));
      const result = await doGenerate();
      // Choice seam: the answer's armed calls, against the frame rebuilt.
      const armed = result.content.filter((part) => part.type === 'tool-call' && argumentsFrom[part.toolName] !== undefined)
        .map((part) => ({ toolName: part.toolName, toolCallId: part.toolCallId, args: JSON.parse(part.input), argumentsFrom: argumentsFrom[part.toolName] }));
      if (armed.length > 0) file(checks.unsupportedArgumentsOf(armed, checks.choiceFrameOf(undefined, entries), epoch).findings);
      return result;
    },
  };
  return { middleware, get findings() { return findings; } };
}

// ---- one timed run ----------------------------------------------------------

/**
 * Wraps a middleware so that the time spent in it, model call by model call,
 * is recorded in `guardMs`, and the start of each call in `startMs`.
 */
function timed(middleware, guardMs, startMs) {
  return {
    specificationVersion: 'v3',
    async wrapGenerate({ doGenerate, params, model }) {
      let began = performance.now();
      startMs.push(began);
      let spent = 0;
      const result = await middleware.wrapGenerate({
        params,
        model,
        doGenerate: async () => {
          spent += performance.now() - began;
          const answer = await doGenerate();
          began = performance.now();
          return answer;
        },
      });
      guardMs.push(spent + performance.now() - began);
      return result;
    },
  };
}

/** One run of the workload under `makeGuard` (or none); per-step times and findings. */
export async function guardRun(workload, makeGuard) {
  const { system, results, calls } = workload;
  let step = 0;
  const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };
  const model = new MockLanguageModelV3({
    doGenerate: async () => {
      const index = step++;
      const content = index < STEPS
        ? [{ type: 'tool-call', toolCallId: `call-${index}`, toolName: 'host_detail', input: JSON.stringify(calls[index]) }]
        : [{ type: 'text', text: 'done' }];
      const reason = index < STEPS ? 'tool-calls' : 'stop';
      return { content, finishReason: { unified: reason, raw: reason }, usage, warnings: [] };
    },
  });
  let served = 0;
  const tools = {
    host_detail: tool({
      description: 'Details of a host',
      inputSchema: jsonSchema({ type: 'object', properties: { host: { type: 'string' }, wwpn: { type: 'string' }, rack: { type: 'string' } } }),
      execute: async () => results[served++],
    }),
  };
  const guardMs = [];
  const startMs = [];
  const guard = makeGuard?.();
  const wrapped = guard === undefined ? model : wrapLanguageModel({ model, middleware: timed(guard.middleware, guardMs, startMs) });
  const began = performance.now();
  await generateText({ model: wrapped, tools, system, prompt: 'Check every host you find.', stopWhen: stepCountIs(STEPS + 1) });
  return { totalMs: performance.now() - began, guardMs, startMs, findings: guard?.findings ?? [] };
}

export const seamguardGuard = () => createGuard({ argumentsFrom: ARMED });
export const javascriptGuard = () => jsGuard({ argumentsFrom: ARMED });

// ---- the rows ---------------------------------------------------------------

/** A middleware of fixed work per call (one 9 KB string read): what the loop itself does to a constant cost. */
const PROBE_TEXT = 'abc'.repeat(3000);
/** What the probe read, kept where V8 cannot prove it unused. */
export let probeSink = 0;

export function constantProbe() {
  return {
    middleware: {
      specificationVersion: 'v3',
      async wrapGenerate({ doGenerate }) {
        for (let i = 0; i < PROBE_TEXT.length; i += 7) probeSink += PROBE_TEXT.charCodeAt(i);
        return doGenerate();
      },
    },
    findings: [],
  };
}

const median = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
// "At step 30" is the median of steps 21-40, "at step 300" of steps 281-300.
const AT_30 = [20, 40];
const AT_300 = [280, 300];
const around = (perStep, [from, to]) => median(perStep.slice(from, to));

/** The same findings from both guards: kind, tool, path, first witness and epoch. */
const findingsKey = (findings) => JSON.stringify(findings.map((f) => [f.kind, f.subjects.map((s) => s.id), f.predicate, f.witnesses[0].value, f.epoch]));

/**
 * The guard rows: `rounds` runs of each guard through generateText,
 * alternating, and the same model calls replayed to each guard with no SDK
 * around it. Per guard, the medians over rounds of: its time per step at
 * step 30 and at step 300, the whole run's guard time, and its share of a
 * whole step at 30 and 300.
 */
export async function guardRows(rounds) {
  const workload = guardRunWorkload();
  const guards = { seamguard: seamguardGuard, javascript: javascriptGuard, probe: constantProbe };
  const first = await guardRun(workload, seamguardGuard);
  const second = await guardRun(workload, javascriptGuard);
  if (findingsKey(first.findings) !== findingsKey(second.findings) || first.findings.length === 0) {
    throw new Error('guard run: seamguard and the JavaScript guard disagree');
  }
  // The model calls of one run, to replay to a guard with nothing around it.
  const calls = [];
  await guardRun(workload, () => ({
    middleware: { async wrapGenerate({ doGenerate, params }) { const result = await doGenerate(); calls.push({ params, result }); return result; } },
  }));
  const samples = Object.fromEntries(Object.keys(guards).map((name) => [name, { at30: [], at300: [], total: [], share30: [], share300: [], replay30: [], replay300: [] }]));
  const names = Object.keys(guards);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...names].reverse() : names;
    for (const name of order) {
      const { guardMs, startMs } = await guardRun(workload, guards[name]);
      const stepMs = startMs.slice(1).map((t, i) => t - startMs[i]);
      const s = samples[name];
      s.at30.push(around(guardMs, AT_30));
      s.at300.push(around(guardMs, AT_300));
      s.total.push(guardMs.reduce((sum, x) => sum + x, 0));
      s.share30.push(around(guardMs, AT_30) / around(stepMs, AT_30));
      s.share300.push(around(guardMs, AT_300) / around(stepMs, AT_300));
      const guard = guards[name]();
      const replayMs = [];
      for (const { params, result } of calls) {
        const began = performance.now();
        await guard.middleware.wrapGenerate({ params, doGenerate: async () => result });
        replayMs.push(performance.now() - began);
      }
      s.replay30.push(around(replayMs, AT_30));
      s.replay300.push(around(replayMs, AT_300));
    }
  }
  return Object.fromEntries(names.map((name) => [name, Object.fromEntries(Object.entries(samples[name]).map(([k, v]) => [k, median(v)]))]));
}
