// Plain JavaScript models of the choice-seam and compose-seam checks
// (docs/checks.md, "unsupported-argument" and "dangling-reference") and of
// the run corpus that feeds them ("One run, one corpus"), written as
// directly as the rules read, for the tests to compare the addon against.
// They decide verdicts only: which fence let each leaf through, which
// source excused it, which state a finding is in, which grounds a tool is
// missing. The prose of messages and provenance is the addon's own and is
// checked separately.

/** The second witness's value for a value found only in the model's own text. */
export const SELF_REFERENCED = 'served by nothing \u2014 present only in the model\u2019s own earlier answer';
/** The second witness's value for a value found nowhere in the frame. */
export const NOWHERE = 'served by nothing in the window the model saw';

/**
 * Every string leaf of `node` with its dot-path, in walk order: the walk of
 * empty-lookup (docs/checks.md), plus the one guard the addon adds (a
 * container already on the current path is not entered again), so that a
 * cycle ends the branch instead of the model.
 */
export function* stringLeaves(node, path = '', onPath = new Set()) {
  if (typeof node === 'string') {
    yield { path, value: node };
    return;
  }
  if (node === null || typeof node !== 'object' || onPath.has(node)) return;
  const join = (segment) => (path === '' ? segment : `${path}.${segment}`);
  onPath.add(node);
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) yield* stringLeaves(node[i], join(String(i)), onPath);
  } else {
    for (const [key, value] of Object.entries(node)) yield* stringLeaves(value, join(key), onPath);
  }
  onPath.delete(node);
}

/** declaredEnumValuesOf, as the rules read: the strings of every `enum` array, depth 8 at most. */
export function modelDeclaredEnums(schema) {
  const values = new Set();
  const visit = (node, depth) => {
    if (depth > 8 || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const element of node) visit(element, depth + 1);
      return;
    }
    if (Array.isArray(node.enum)) {
      for (const member of node.enum) if (typeof member === 'string') values.add(member);
    }
    for (const value of Object.values(node)) visit(value, depth + 1);
  };
  visit(schema, 0);
  return values;
}

/** The usable entries of `corpus.external`, lowered, each with its source as given. */
export function usableExternal(external) {
  if (!Array.isArray(external)) return [];
  const usable = [];
  for (const entry of external) {
    if (entry === null || typeof entry !== 'object') continue;
    const { value, source } = entry;
    if (typeof value !== 'string' || value.trim() === '') continue;
    if (typeof source !== 'string' || source.trim() === '') continue;
    usable.push({ lowered: value.toLowerCase(), source });
  }
  return usable;
}

/**
 * The verdict on every string leaf of every call, in call order then leaf
 * order: `{ call, toolName, toolCallId, path, value, verdict, source? }`
 * where `verdict` is `'short'` (under the four-unit fence), `'enum'`,
 * `'served'`, `'external'` (with the excusing `source`), `'self-referenced'`
 * or `'nowhere'`.
 */
export function modelChoiceVerdicts(calls, corpus) {
  if (calls.length === 0) return [];
  const served = corpus.grounded.map((text) => text.toLowerCase());
  const written = corpus.assistant.map((text) => text.toLowerCase());
  const external = usableExternal(corpus.external);
  const verdicts = [];
  calls.forEach((call, index) => {
    const enums = call.declaredEnums === undefined ? [] : [...call.declaredEnums].map((member) => member.toLowerCase());
    for (const leaf of stringLeaves(call.args)) {
      const base = { call: index, toolName: call.toolName, toolCallId: call.toolCallId, path: leaf.path, value: leaf.value };
      const value = leaf.value.trim();
      if (value.length < 4) {
        verdicts.push({ ...base, verdict: 'short' });
        continue;
      }
      const needle = value.toLowerCase();
      if (enums.includes(needle)) {
        verdicts.push({ ...base, verdict: 'enum' });
      } else if (served.some((text) => text.includes(needle))) {
        verdicts.push({ ...base, verdict: 'served' });
      } else {
        const excuse = external.find((entry) => entry.lowered.includes(needle));
        if (excuse !== undefined) verdicts.push({ ...base, verdict: 'external', source: excuse.source });
        else verdicts.push({ ...base, verdict: written.some((text) => text.includes(needle)) ? 'self-referenced' : 'nowhere' });
      }
    }
  });
  return verdicts;
}

/**
 * What of the verdicts an answer can show: each finding as [tool, path,
 * value, second witness], each excusal as [tool, call id, path, value, source].
 */
export function visibleVerdicts(verdicts) {
  return {
    findings: verdicts
      .filter((v) => v.verdict === 'self-referenced' || v.verdict === 'nowhere')
      .map((v) => [v.toolName, v.path, v.value, v.verdict === 'nowhere' ? NOWHERE : SELF_REFERENCED]),
    externalGroundings: verdicts
      .filter((v) => v.verdict === 'external')
      .map((v) => [v.toolName, v.toolCallId, v.path, v.value, v.source]),
  };
}

/** The same view of the addon's answer. */
export function verdictsOfAnswer(answer) {
  return {
    findings: answer.findings.map((f) => [f.subjects[0].id, f.predicate, f.witnesses[0].value, f.witnesses[1].value]),
    externalGroundings: answer.externalGroundings.map((g) => [g.toolName, g.toolCallId, g.path, g.value, g.source]),
  };
}

/** Per served tool that files, `{ tool, missing }`, in order; `dropped` and `present` answer `has`. */
export function modelDangling(servedTools, dropped, present) {
  const filed = [];
  for (const tool of servedTools) {
    const missing = tool.argumentsFrom.filter((ground) => dropped.has(ground) && !present.has(ground));
    if (missing.length > 0) filed.push({ tool: tool.name, missing });
  }
  return filed;
}

/** The same view of the addon's findings. */
export function missingOf(findings) {
  return findings.map((f) => ({ tool: f.subjects[0].id, missing: f.subjects.slice(1).map((s) => s.id) }));
}

/** The disposition a caller notes for a choice-seam answer. */
export function choiceDisposition(calls, answer) {
  if (calls.length === 0) return 'not-applicable';
  return answer.findings.length > 0 ? 'checked-fail' : 'checked-pass';
}

/** The disposition RunCorpus.danglingReferencesOf notes. */
export function composeDisposition(servedTools, dropped, findings) {
  if (!servedTools.some((tool) => tool.argumentsFrom.length > 0) || dropped.size === 0) return 'not-applicable';
  return findings.length > 0 ? 'checked-fail' : 'checked-pass';
}

/**
 * A run corpus as an array of entries with an evicted flag. It builds the
 * stateless inputs for the entries in the window; it validates nothing (the
 * tests hand it only what the addon accepted).
 */
export class ModelRunCorpus {
  entries = [];
  nextId = 0;

  push(entry) {
    const role = entry.role === undefined ? 'tool' : entry.role;
    const toolName = role === 'tool' ? entry.toolName : undefined;
    this.entries.push({ id: this.nextId, role, text: entry.text, toolName, evicted: false });
    return this.nextId++;
  }

  evict(ids) {
    for (const entry of this.entries) if (ids.includes(entry.id)) entry.evicted = true;
  }

  clear() {
    this.entries = [];
  }

  get length() {
    return this.entries.length;
  }

  get windowLength() {
    return this.inWindow().length;
  }

  inWindow() {
    return this.entries.filter((entry) => !entry.evicted);
  }

  /** emptyLookupOf's `produced`: the named tool entries in the window. */
  produced() {
    return this.inWindow()
      .filter((entry) => entry.role === 'tool' && entry.toolName !== undefined)
      .map(({ toolName, text }) => ({ toolName, text }));
  }

  /** unsupportedArgumentsOf's `corpus` for a request `{ systemPrompt?, external? }`. */
  frame(request) {
    const window = this.inWindow();
    const grounded = window.filter((entry) => entry.role !== 'assistant').map((entry) => entry.text);
    if (request.systemPrompt !== undefined) grounded.unshift(request.systemPrompt);
    const frame = { grounded, assistant: window.filter((entry) => entry.role === 'assistant').map((entry) => entry.text) };
    if ('external' in request) frame.external = request.external;
    return frame;
  }

  /** danglingReferencesOf's `droppedResults`: the names of the named tool entries evicted. */
  dropped() {
    return new Set(this.entries.filter((entry) => entry.evicted && entry.role === 'tool' && entry.toolName !== undefined).map((entry) => entry.toolName));
  }

  /** danglingReferencesOf's `presentResults`: the names of the named tool entries in the window. */
  present() {
    return new Set(this.inWindow().filter((entry) => entry.role === 'tool' && entry.toolName !== undefined).map((entry) => entry.toolName));
  }
}
