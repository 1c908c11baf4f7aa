'use strict';
// Telemetry: each signal of a model call (a finding filed, a span stripped,
// a leaked call healed or refused) recorded where the framework's traces
// already are. This file turns a signal into one set of attributes, the
// same for every place it is recorded; the places are sinks:
//
// - the active OpenTelemetry span, through `@opentelemetry/api` when it is
//   installed (the AI SDK's `experimental_telemetry` spans, or any span the
//   app opened): an event per signal;
// - a sink the adapter hands over for its framework's own tracing
//   (LangChain's custom events, the Agents SDK's custom spans, Mastra's
//   event spans): `(name, attributes) => void`.
//
// A model call with no sink gets no trace at all (`callTrace` answers
// `undefined`), so a run with no tracer builds no attribute. The span
// is read once, when the model call begins: a stream's parts arrive
// outside the context the call began in.
//
// Attributes follow OpenTelemetry's rules (a string, number or boolean, or
// an array of one of them; no undefined), with the GenAI semantic
// conventions' names where one exists (`gen_ai.tool.name`,
// `gen_ai.tool.call.id`). A sink that throws never reaches the run: the
// error goes to `report`.

const { isClaimFinding, statedValues } = require('./claim.cjs');

/** The names the signals are recorded under. */
const SIGNALS = Object.freeze({
  finding: 'seamguard.finding',
  strip: 'seamguard.strip',
  heal: 'seamguard.heal',
  healRefused: 'seamguard.heal_refused',
  revision: 'seamguard.revision',
});

// A stripped span or a value is cut to this many characters: enough to
// read, not a copy of the model's answer in every trace.
const TEXT_CUT = 500;

const cut = (text) => (text.length > TEXT_CUT ? `${text.slice(0, TEXT_CUT)}…` : text);

/** A value as an attribute: a string as it is (cut), anything else as its JSON. */
function textValue(value) {
  if (typeof value === 'string') return cut(value);
  try {
    return cut(JSON.stringify(value) ?? String(value));
  } catch {
    return cut(String(value));
  }
}

// `@opentelemetry/api` is an optional peer: looked up once, on first use.
// `false` when it is not installed. (A cache of what is installed, not of
// anything a call hands in.)
let otel;
function otelApi() {
  if (otel === undefined) {
    try {
      otel = require('@opentelemetry/api');
    } catch {
      otel = false;
    }
  }
  return otel;
}

/**
 * The active OpenTelemetry span, when one records: undefined with no
 * tracer registered (the API's span is then a no-op that records nothing),
 * or with `@opentelemetry/api` not installed.
 */
function activeSpan() {
  const api = otelApi();
  if (api === false) return undefined;
  const span = api.trace.getActiveSpan();
  return span !== undefined && span.isRecording() ? span : undefined;
}

/** The attributes of a finding, filed about `toolCallId` (when known). */
function findingAttributes(finding, toolCallId) {
  const tools = [];
  for (const subject of finding.subjects ?? []) {
    if (subject?.kind === 'tool' && typeof subject.id === 'string' && !tools.includes(subject.id)) tools.push(subject.id);
  }
  const attributes = {
    'seamguard.signal': 'finding',
    'seamguard.kind': finding.kind,
    'seamguard.seam': finding.seam,
    'seamguard.tools': tools,
    'seamguard.message': finding.message,
  };
  if (tools.length > 0) attributes['gen_ai.tool.name'] = tools[0];
  if (isClaimFinding(finding)) {
    // About the final answer, not an argument: the values it states
    // unsupported, as a revision's signal names them.
    attributes['seamguard.values'] = statedValues(finding).map((value) => cut(String(value)));
  } else if (typeof finding.predicate === 'string') {
    // An argument's path, and the value the model chose for it (the first
    // witness says what was chosen); a finding about no argument has neither.
    attributes['seamguard.path'] = finding.predicate;
    const chosen = finding.witnesses?.[0]?.value;
    if (chosen !== undefined) attributes['seamguard.value'] = textValue(chosen);
  }
  if (typeof toolCallId === 'string') attributes['gen_ai.tool.call.id'] = toolCallId;
  if (finding.advisory === true) attributes['seamguard.advisory'] = true;
  return attributes;
}

/** The attributes of a strip event (`StripEvent`). */
function stripAttributes(event) {
  const attributes = {
    'seamguard.signal': 'strip',
    'seamguard.reason': event.reason,
    'seamguard.span': cut(event.span),
    'seamguard.pattern': event.pattern,
  };
  if (event.calls !== undefined) attributes['seamguard.tools'] = event.calls.map((call) => call.name);
  return attributes;
}

/** The attributes of a healed call (`{ toolCallId, toolName, input }`). */
const healAttributes = (call) => ({
  'seamguard.signal': 'heal',
  'seamguard.tools': [call.toolName],
  'gen_ai.tool.name': call.toolName,
  'gen_ai.tool.call.id': call.toolCallId,
  'seamguard.value': textValue(call.input),
});

/** The attributes of a leaked call heal turned down (`{ toolName, reason }`). */
const refusalAttributes = (call) => ({
  'seamguard.signal': 'heal-refused',
  'seamguard.tools': [call.toolName],
  'gen_ai.tool.name': call.toolName,
  'seamguard.reason': call.reason,
});

/**
 * Where one model call's signals are recorded: the OpenTelemetry span
 * active when the call began, and the framework's sink. `run(id, epoch)`
 * names the run and its model call once the guard found them; every
 * signal after carries them.
 */
class CallTrace {
  constructor(span, sink, report) {
    this.span = span;
    this.sink = sink;
    this.report = report;
    this.runId = undefined;
    this.modelCall = undefined;
  }

  run(id, epoch) {
    this.runId = id;
    this.modelCall = epoch;
  }

  finding(finding, toolCallId) {
    this.record(SIGNALS.finding, findingAttributes(finding, toolCallId));
  }

  strip(event) {
    this.record(SIGNALS.strip, stripAttributes(event));
  }

  /** The claim seam asked the model for its one revision, naming `unsupported` (`[{ value, shape }]`). */
  revision(unsupported, candidates) {
    const attributes = { 'seamguard.signal': 'revision', 'seamguard.kind': 'unsupported-claim', 'seamguard.seam': 'claim', 'seamguard.values': unsupported.map((item) => cut(String(item.value))) };
    if (typeof candidates === 'number') attributes['seamguard.candidates'] = candidates;
    this.record(SIGNALS.revision, attributes);
  }

  heal(healed, refused) {
    for (const call of healed) this.record(SIGNALS.heal, healAttributes(call));
    for (const call of refused) this.record(SIGNALS.healRefused, refusalAttributes(call));
  }

  record(name, attributes) {
    if (this.runId !== undefined) attributes['seamguard.run_id'] = this.runId;
    if (this.modelCall !== undefined) attributes['seamguard.model_call'] = this.modelCall;
    try {
      this.span?.addEvent(name, attributes);
    } catch (error) {
      this.report(error);
    }
    if (this.sink === undefined) return;
    try {
      const returned = this.sink(name, attributes);
      if (returned !== null && typeof returned?.then === 'function') returned.then(undefined, (error) => this.report(error));
    } catch (error) {
      this.report(error);
    }
  }
}

/**
 * The trace of a model call beginning now: the active span and `sink`
 * (the framework's, or undefined). `undefined` when neither records, so a
 * run with no tracer pays for this lookup and nothing else.
 */
function callTrace(sink, report) {
  const span = activeSpan();
  if (span === undefined && sink === undefined) return undefined;
  return new CallTrace(span, sink, report);
}

exports.callTrace = callTrace;
