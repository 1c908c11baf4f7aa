'use strict';
// Heal: a leaked call to a tool on offer, read out of the text the stream
// seam stripped, becomes a real tool call where the framework can run one.
// One set of rules for every adapter and for `scaffoldingMiddleware`:
//
// - only when the answer made no real tool call (a model that called
//   tools meant those; a leak beside them is residue);
// - only a call to a tool the model may call now (after tool choice): a
//   call to a tool it invented, or one the app withdrew, stays stripped and
//   never runs;
// - only with arguments that were read as JSON and that the tool's input
//   schema admits (`argumentsMisfit`, in Rust): a call whose arguments
//   cannot be read, or do not fit, stays stripped.
//
// Each leaked call is healed at most once.

const { randomUUID } = require('node:crypto');
const { argumentsMisfit } = require('../native.cjs');

/** A fresh id for a healed call, told apart from a provider's own ids. */
const healedId = () => `healed_${randomUUID().replaceAll('-', '')}`;

/**
 * Why a leaked call may not run as `tool` (`{ name, inputSchema }`), or
 * `undefined` when it may.
 */
function refusal(call, tool) {
  // (A call the filter read as one to a tool not on offer says so, whatever its name.)
  if (tool === undefined || call.offered === false) return 'the tool is not on offer';
  if (!('input' in call)) return 'its arguments could not be read';
  let schema;
  try {
    schema = tool.inputSchema === undefined || tool.inputSchema === null ? null : JSON.stringify(tool.inputSchema);
  } catch {
    return 'the tool\'s input schema is not JSON';
  }
  try {
    return argumentsMisfit(JSON.stringify(call.input), schema) ?? undefined;
  } catch (error) {
    return `its arguments could not be checked (${error?.message ?? error})`;
  }
}

/**
 * The leaked calls `calls` (as a strip event's `calls` hold them:
 * `{ name, input? }`) that may run, given the tools the model may call
 * now, `offered` (`[{ name, inputSchema }]`): `{ healed, refused }`, the
 * healed as `{ toolCallId, toolName, input }` and the refused as
 * `{ toolName, reason }`.
 */
function healCalls(calls, offered) {
  const tools = new Map();
  for (const tool of offered) {
    if (typeof tool?.name === 'string' && !tools.has(tool.name)) tools.set(tool.name, tool);
  }
  const healed = [];
  const refused = [];
  for (const call of calls) {
    const reason = refusal(call, tools.get(call.name));
    if (reason === undefined) healed.push({ toolCallId: healedId(), toolName: call.name, input: call.input });
    else refused.push({ toolName: call.name, reason });
  }
  return { healed, refused };
}

/**
 * The stream seam of one model call: `plan`, the FilterPlan every text of
 * the call opens its filter from (`undefined` when stripping is off), and
 * `heal(realCalls)`, the calls leaked since the last `heal` that may run
 * (none when the answer made `realCalls` real calls, or healing is off).
 * `leaked` holds every call read out of the call's stripped text, and
 * `refused` the leaked calls heal turned down, with the reason.
 * `makePlan(onStrip)` builds the plan around the seam's strip listener.
 * Each strip, heal and refusal is recorded in `trace` (telemetry.cjs),
 * when given; `quietly(strip)` runs `strip` with what it strips neither
 * recorded nor kept to heal (a second reading of text already read).
 */
function streamSeam({ strip, heal, offered, makePlan, trace }) {
  const seam = { plan: undefined, leaked: [], refused: [] };
  let waiting = [];
  let quiet = false;
  seam.quietly = (read) => {
    quiet = true;
    try {
      return read();
    } finally {
      quiet = false;
    }
  };
  if (strip) {
    seam.plan = makePlan((event) => {
      if (quiet) return;
      trace?.strip(event);
      if (event.calls === undefined) return;
      seam.leaked.push(...event.calls);
      waiting.push(...event.calls);
    });
  }
  seam.heal = (realCalls = 0) => {
    const calls = waiting;
    waiting = [];
    if (!heal || realCalls > 0 || calls.length === 0) return [];
    const { healed, refused } = healCalls(calls, offered);
    seam.refused.push(...refused);
    trace?.heal(healed, refused);
    return healed;
  };
  return seam;
}

exports.healCalls = healCalls;
exports.healedId = healedId;
exports.streamSeam = streamSeam;
