// A TypeScript agent framework's side of the write seam, written against
// agentfootprint's types and compiled against seamguard's generated
// index.d.ts under `strict` (npm test runs `tsc -p __test__/types`). It imports
// the package by name, as a consumer does.
import {
  EMPTY_LOOKUP_CEILING,
  emptyLookupOf,
  readLookupResult,
  type Assertion,
  type AssertionStratum,
  type ContextError,
  type ContextErrorKind,
  type Disposition,
  type EmptyLookupCall,
  type EmptyLookupEncounter,
  type IntegritySeam,
  type LookupResultReading,
  type ProducedResult,
  type SubjectRef,
} from 'seamguard';

interface ToolResult {
  readonly toolName: string;
  readonly toolCallId: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly value: unknown;
  readonly absent: boolean;
}

/** What a framework keeps per run: the results served so far, in order. */
class Run {
  readonly produced: ProducedResult[] = [];
  epoch = 0;

  serve(result: ToolResult): void {
    this.produced.push({ toolName: result.toolName, text: JSON.stringify(result.value) });
  }

  check(result: ToolResult, argumentsFrom: readonly string[]): EmptyLookupEncounter {
    const reading: LookupResultReading | undefined = readLookupResult(result.value, result.absent);
    const call: EmptyLookupCall = {
      toolName: result.toolName,
      toolCallId: result.toolCallId,
      args: result.args,
      argumentsFrom,
      reading,
    };
    this.epoch += 1;
    return emptyLookupOf(call, this.produced, this.epoch);
  }
}

function ledgerRow(disposition: Disposition): string {
  switch (disposition) {
    case 'checked-pass':
    case 'checked-fail':
    case 'not-applicable':
    case 'unreachable':
      return disposition;
  }
}

function describe(finding: ContextError): string {
  const kind: ContextErrorKind = finding.kind;
  const seam: IntegritySeam = finding.seam;
  const subjects: readonly SubjectRef[] = finding.subjects;
  const witnesses: readonly Assertion[] = finding.witnesses;
  const strata: AssertionStratum[] = witnesses.map((w) => w.stratum);
  const advisory: true | undefined = finding.advisory;
  const epoch: number | undefined = finding.epoch;
  return `${kind}@${seam} ${subjects.map((s) => s.id).join('→')} ${finding.predicate ?? ''} ${strata.join()} ${advisory} ${epoch} ${finding.message}`;
}

const run = new Run();
run.serve({ toolName: 'fabric_inventory', toolCallId: 'call-1', args: {}, value: ['20:00:00:25:b5:aa:00:1f'], absent: false });
const encounter = run.check(
  { toolName: 'port_for_device', toolCallId: 'call-2', args: { wwpn: '20:00:00:25:b5:aa:00:1f' }, value: [], absent: false },
  ['fabric_inventory'],
);
const rows: string[] = [ledgerRow(encounter.disposition), ...encounter.findings.map(describe), EMPTY_LOOKUP_CEILING];
void rows;

// The readonly surface stays readonly.
// @ts-expect-error findings is a readonly array
encounter.findings.push(encounter.findings[0]!);
// @ts-expect-error a reading's fields are readonly
reading().empty = false;
function reading(): LookupResultReading {
  return { shape: 'rowset', empty: true, rows: 0 };
}
// @ts-expect-error reading is required, even when it is undefined
const missingReading: EmptyLookupCall = { toolName: 't', toolCallId: 'c', args: {}, argumentsFrom: [] };
void missingReading;

// The stream seam, as a framework's streaming loop uses it.
import { ScaffoldingFilter, SCAFFOLD_PATTERNS } from 'seamguard';

interface ChatChunk {
  readonly choices: ReadonlyArray<{ readonly delta?: { readonly content?: string | null } }>;
}

async function* clean(stream: AsyncIterable<ChatChunk>): AsyncGenerator<string, { stripped: number; spans: string[] }> {
  const filter = new ScaffoldingFilter();
  for await (const part of stream) {
    const visible: string = filter.feed(part.choices[0]?.delta?.content ?? '');
    if (visible) yield visible;
  }
  const tail: string = filter.flush();
  if (tail) yield tail;
  return { stripped: filter.strippedChars, spans: filter.strippedSpans };
}
void clean;
const sources: RegExp[] = SCAFFOLD_PATTERNS.map((source) => new RegExp(source));
void sources;
// @ts-expect-error feed takes a string
new ScaffoldingFilter().feed(42);
// A filter that will not be flushed frees its native memory at once (ES2022
// has no Symbol.dispose: the package's typings declare it).
const disposable: { [Symbol.dispose](): void } = new ScaffoldingFilter();
disposable[Symbol.dispose]();

// The filter's options, as a framework configures them per model family.
import { SCAFFOLD_PRESETS } from 'seamguard';
import type { ScaffoldingFilterOptions, ScaffoldJson, ScaffoldJsonCall, ScaffoldPresets, ScaffoldRegex, ScaffoldSpan, ScaffoldToken, StripEvent, StripReason } from 'seamguard';

const presetNames: Array<keyof ScaffoldPresets> = ['lfm2', 'hermes', 'llama3', 'mistral', 'deepseek-v3', 'kimi-k2'];
void presetNames;
function logStrip({ span, reason, pattern }: StripEvent): void {
  const why: StripReason = reason;
  console.warn(`stripped ${why} scaffolding (pattern ${pattern}): ${span.slice(0, 200)}`);
}
const configured = new ScaffoldingFilter({
  patterns: SCAFFOLD_PRESETS['deepseek-v3'],
  openSpanAtEnd: 'drop',
  onStrip: logStrip,
  maxHeld: 64 * 1024,
});
void configured;
type Entry = ScaffoldSpan | ScaffoldToken | ScaffoldRegex | ScaffoldJson | ScaffoldJsonCall;
const custom: ReadonlyArray<Entry> = [
  ...SCAFFOLD_PRESETS.hermes,
  { token: '[TOOL_CALLS]' },
  { start: /<function=[\w.-]+>/, end: '</function>' },
  { regex: /<<call:[a-z_]+>>/ },
  { start: '<|python_tag|>', json: true },
  { jsonCall: { toolNames: ['web_search'] } },
];
const everything: ReadonlyArray<Entry> = Object.values(SCAFFOLD_PRESETS).flat();
void everything;
const units: string | null = new ScaffoldingFilter({ patterns: everything }).startUnits;
// Compiled once, shared by every response's filter.
import { ScaffoldRegistry } from 'seamguard';
const compiled = new ScaffoldRegistry(everything);
const counted: number = compiled.size;
void counted;
new ScaffoldingFilter({ patterns: compiled, openSpanAtEnd: 'drop' });
void units;
const fromConfig: { maxHeld: number | undefined } = { maxHeld: undefined };
// Under exactOptionalPropertyTypes an option may still be passed as undefined.
const options: ScaffoldingFilterOptions = { patterns: custom, maxHeld: fromConfig.maxHeld };
new ScaffoldingFilter(options);
// @ts-expect-error openSpanAtEnd is 'emit' or 'drop'
new ScaffoldingFilter({ openSpanAtEnd: 'keep' });
// @ts-expect-error a pattern is { start, end }, { token }, { regex }, { start, json: true } or { jsonCall }
new ScaffoldingFilter({ patterns: [{ start: '<a>' }] });
// @ts-expect-error json is true or left out
new ScaffoldingFilter({ patterns: [{ start: '<a>', json: false }] });
// @ts-expect-error unknown options are refused (at run time too)
new ScaffoldingFilter({ maxHold: 10 });
// @ts-expect-error the presets are read-only
SCAFFOLD_PRESETS.hermes = [];
// The run-long corpus, as a framework keeps it: push each result as it is
// served, judge each armed call against everything pushed so far.
import { ProducedCorpus } from 'seamguard';

const corpus = new ProducedCorpus();
const served: ProducedResult = { toolName: 'fabric_inventory', text: '20:00:00:25:b5:aa:00:1f' };
corpus.push(served);
const count: number = corpus.length;
const judged: EmptyLookupEncounter = corpus.emptyLookupOf(
  { toolName: 'port_for_device', toolCallId: 'call-3', args: { wwpn: '20:00:00:25:b5:aa:00:1f' }, argumentsFrom: ['fabric_inventory'], reading: readLookupResult([], false) },
  count,
);
void judged;
// @ts-expect-error push takes a ProducedResult
corpus.push('text');
// @ts-expect-error length is read-only
corpus.length = 3;
