// unsupportedArgumentsOf and danglingReferencesOf written in plain JavaScript
// from their rules (docs/checks.md, "unsupported-argument" and
// "dangling-reference"), the
// way a framework author would write them in TypeScript: a recursive
// generator for the string leaves, every frame text lower-cased once per
// call with toLowerCase, `includes` for containment, and full findings with
// both witnesses and a message. Then the loop a framework runs around the
// choice check: per model response it rebuilds the frame from the current
// window (lowering every in-window text again) and checks the armed calls.
// It is the baseline the benchmark measures the addon against; its prose is
// its own.

// The external-ground hygiene is the test model's: one plain reading of the
// spec's rule, shared rather than written twice.
import { usableExternal } from '../__test__/support/check-model.mjs';

const SHORTEST_CHECKED = 4;

const SELF_REFERENCED = 'served by nothing \u2014 present only in the model\u2019s own earlier answer';
const NOWHERE = 'served by nothing in the window the model saw';

/** Every string leaf of `node` with its dot-path (empty-lookup's walk). */
function* leavesOf(node, path) {
  if (typeof node === 'string') {
    yield [path, node];
    return;
  }
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) yield* leavesOf(node[i], path === '' ? `${i}` : `${path}.${i}`);
    return;
  }
  for (const [key, value] of Object.entries(node)) yield* leavesOf(value, path === '' ? key : `${path}.${key}`);
}

/** `text` cut to 80 UTF-16 units with a trailing ellipsis, never inside a surrogate pair. */
function clip(text) {
  if (text.length <= 80) return text;
  let end = 79;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + '\u2026';
}

function describeFix(argumentsFrom) {
  if (argumentsFrom.length === 0) return 'read the value again from the tool that actually serves it';
  const names = argumentsFrom.map((name) => `'${name}'`).join(', ');
  return `call ${names} again and take the value from what ${argumentsFrom.length === 1 ? 'it returns' : 'they return'}`;
}

export function unsupportedArgumentsOf(calls, corpus, epoch) {
  const findings = [];
  const externalGroundings = [];
  if (calls.length === 0) return { findings, externalGroundings };

  const served = corpus.grounded.map((text) => text.toLowerCase());
  const ownTurns = corpus.assistant.map((text) => text.toLowerCase());
  const external = usableExternal(corpus.external);
  const searched =
    `searched the request the model answered: ${served.length} served string(s) (system prompt, user ` +
    `messages, tool results) and ${ownTurns.length} assistant turn(s)`;

  for (const call of calls) {
    const tool = { kind: 'tool', id: call.toolName };
    const enums = new Set();
    if (call.declaredEnums !== undefined) for (const member of call.declaredEnums) enums.add(member.toLowerCase());
    const fix = describeFix(call.argumentsFrom);

    for (const [path, leaf] of leavesOf(call.args, '')) {
      const value = leaf.trim();
      if (value.length < SHORTEST_CHECKED) continue;
      const needle = value.toLowerCase();
      if (enums.has(needle)) continue;
      if (served.some((text) => text.includes(needle))) continue;
      const excuse = external.find((entry) => entry.lowered.includes(needle));
      if (excuse !== undefined) {
        externalGroundings.push({
          toolName: call.toolName, toolCallId: call.toolCallId, path, value: leaf, source: excuse.source,
        });
        continue;
      }

      const selfReferenced = ownTurns.some((text) => text.includes(needle));
      const witness = (witnessValue, provenance) => ({
        subject: tool, predicate: path, value: witnessValue, epoch, stratum: 'asserted', provenance,
      });
      const where = selfReferenced
        ? 'The only place it appears in the request the model answered is the model\u2019s own earlier answer, ' +
          'and a value copied out of prose the model wrote can be a piece of some other name.'
        : 'It appears nowhere in the request the model answered: not in the instructions, not in any user ' +
          'message, not in any tool result, so nothing in this run says what it refers to.';
      findings.push({
        kind: 'unsupported-argument',
        seam: 'choice',
        subjects: [tool],
        predicate: path,
        witnesses: [
          witness(leaf, `tool call ${call.toolCallId}, argument '${path}', exactly as the model wrote it`),
          witness(selfReferenced ? SELF_REFERENCED : NOWHERE, searched),
        ],
        epoch,
        message: `The model called '${call.toolName}' with ${path} = "${clip(value)}". ${where} ` +
          `To ground it, ${fix}. Nothing here blocked the call.`,
      });
    }
  }
  return { findings, externalGroundings };
}

export function danglingReferencesOf(servedTools, droppedResults, presentResults, epoch) {
  const findings = [];
  for (const tool of servedTools) {
    const missing = tool.argumentsFrom.filter((ground) => droppedResults.has(ground) && !presentResults.has(ground));
    if (missing.length === 0) continue;
    const subject = { kind: 'tool', id: tool.name };
    const names = missing.map((ground) => `'${ground}'`).join(', ');
    findings.push({
      kind: 'dangling-reference',
      seam: 'compose',
      subjects: [subject, ...missing.map((ground) => ({ kind: 'tool', id: ground }))],
      witnesses: missing.map((ground) => ({
        subject,
        predicate: 'argument-ground',
        value: `results of '${ground}' evicted, not re-established`,
        epoch,
        stratum: 'asserted',
        provenance: `the window dropped the results of '${ground}' earlier in this run, and none is in this request`,
      })),
      epoch,
      message: `'${tool.name}' is offered in this request, but the results its arguments come from (${names}) ` +
        'have left the window and no fresh one has come back, so the model would pick its arguments without ' +
        `their evidence. Calling ${names} again re-grounds it. Nothing here withholds the tool.`,
    });
  }
  return findings;
}

// ---- the framework's loop around the choice check ---------------------------

/**
 * The frame of one request, as agentfootprint builds it from the request it
 * handed the provider: the system prompt, then every message that is not the
 * assistant's as served text; the assistant messages as the model's own.
 */
export function choiceFrameOf(systemPrompt, messages) {
  return {
    grounded: [
      ...(systemPrompt === undefined ? [] : [systemPrompt]),
      ...messages.filter((message) => message.role !== 'assistant').map((message) => message.content),
    ],
    assistant: messages.filter((message) => message.role === 'assistant').map((message) => message.content),
  };
}

/**
 * One whole run through a framework's loop: each message enters the history,
 * the window keeps the last `window` of them, and after each message that is
 * followed by a model response with an armed call (`calls[i]`), the frame is
 * rebuilt from the window and the call is checked, with the disposition the
 * caller notes. Returns one answer per checked response.
 */
export function frameworkRun({ systemPrompt, messages, calls, window }) {
  const inWindow = [];
  const answers = [];
  for (let i = 0; i < messages.length; i++) {
    inWindow.push(messages[i]);
    if (inWindow.length > window) inWindow.shift();
    const call = calls[i];
    if (call === undefined) continue;
    const { findings, externalGroundings } = unsupportedArgumentsOf([call], choiceFrameOf(systemPrompt, inWindow), i);
    answers.push({ findings, externalGroundings, disposition: findings.length > 0 ? 'checked-fail' : 'checked-pass' });
  }
  return answers;
}
