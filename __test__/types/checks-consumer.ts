// A TypeScript agent framework's side of the choice and compose seams, and
// of a run corpus, written as code written against agentfootprint's types
// would be, and compiled against seamguard's generated index.d.ts under
// strict and exactOptionalPropertyTypes (npm test runs `tsc -p __test__/types`).
// It is only type-checked; the behaviour is tested in the .test.mjs files.
import {
  RunCorpus,
  answerValuesOf,
  normalizeValue,
  type AnswerValue,
  type AnswerValuesOptions,
  type ValueShape,
  ProducedCorpus,
  danglingReferencesOf,
  declaredEnumValuesOf,
  dispositionLedger,
  readLookupResult,
  unsupportedArgumentsOf,
  type ArgumentChoice,
  type CheckReport,
  type ChoiceCorpus,
  type ContextError,
  type Disposition,
  type DispositionLedger,
  type EmptyLookupEncounter,
  type ExternalGround,
  type ExternalGrounding,
  type ProducedResult,
  type RunEntry,
  type RunRole,
  type ServedGroundedTool,
  type UnsupportedArguments,
} from 'seamguard';

// The framework's own shapes: a message, a tool definition, a request.
interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
}
interface Message {
  readonly role: RunRole;
  readonly content: string;
  readonly toolName?: string;
  readonly toolCallId?: string;
  readonly toolCalls?: readonly ToolCall[];
}
interface ToolDefinition {
  readonly name: string;
  readonly inputSchema: unknown;
  readonly argumentsFrom?: readonly string[];
}
interface Request {
  readonly systemPrompt?: string;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDefinition[];
}
type ExternalGroundsProvider = () => readonly ExternalGround[];

/** The choice seam, as agentfootprint wires it: the request the model saw, split by who wrote it. */
function choiceCorpus(request: Request, provider: ExternalGroundsProvider | undefined): ChoiceCorpus {
  const grounded: string[] = [];
  if (request.systemPrompt !== undefined) grounded.push(request.systemPrompt);
  const assistant: string[] = [];
  for (const message of request.messages) (message.role === 'assistant' ? assistant : grounded).push(message.content);
  let external: readonly ExternalGround[] = [];
  try {
    const given: unknown = provider?.();
    if (Array.isArray(given)) external = given as readonly ExternalGround[];
  } catch {
    // A provider that throws contributes nothing.
  }
  return external.length > 0 ? { grounded, assistant, external } : { grounded, assistant };
}

function armedChoices(request: Request, calls: readonly ToolCall[]): ArgumentChoice[] {
  const choices: ArgumentChoice[] = [];
  for (const call of calls) {
    const tool = request.tools.find((t) => t.name === call.name);
    if (tool?.argumentsFrom === undefined) continue;
    const declaredEnums: ReadonlySet<string> = declaredEnumValuesOf(tool.inputSchema);
    // Under exactOptionalPropertyTypes an absent fence is left out, not undefined.
    choices.push({
      toolName: call.name,
      toolCallId: call.id,
      args: call.args,
      argumentsFrom: tool.argumentsFrom,
      ...(declaredEnums.size > 0 && { declaredEnums }),
    });
  }
  return choices;
}

function toolNameOf(message: Message, window: readonly Message[]): string | undefined {
  if (message.toolName !== undefined && message.toolName !== '') return message.toolName;
  for (const m of window) for (const call of m.toolCalls ?? []) if (call.id === message.toolCallId) return call.name;
  return undefined;
}

/** The compose seam, as agentfootprint wires it. */
function dangling(request: Request, droppedSoFar: ReadonlySet<string>, epoch: number): readonly ContextError[] {
  const served: ServedGroundedTool[] = request.tools.flatMap((t) => (t.argumentsFrom ? [{ name: t.name, argumentsFrom: t.argumentsFrom }] : []));
  const present = new Set<string>();
  for (const m of request.messages) {
    const name = m.role === 'tool' ? toolNameOf(m, request.messages) : undefined;
    if (name !== undefined) present.add(name);
  }
  return danglingReferencesOf(served, droppedSoFar, present, epoch);
}

const ledger: DispositionLedger = dispositionLedger();
ledger.register('unsupported-argument', 'choice');
ledger.register('dangling-reference', 'compose');

const request: Request = {
  systemPrompt: 'You are a fleet triage assistant.',
  messages: [
    { role: 'user', content: 'What is the backup status for that machine?' },
    { role: 'assistant', content: 'The nightly job bkp-4417-ganymede-tier2 finished at 02:14.' },
  ],
  tools: [
    { name: 'fleet_report', inputSchema: { type: 'object', properties: {} } },
    { name: 'backup_status', inputSchema: { type: 'object', properties: { window: { enum: ['nightly'] } } }, argumentsFrom: ['fleet_report'] },
  ],
};
const calls: readonly ToolCall[] = [{ id: 'call-2', name: 'backup_status', args: { machine: '4417-ganymede' } }];
const choices = armedChoices(request, calls);
const answer: UnsupportedArguments = unsupportedArgumentsOf(choices, choiceCorpus(request, () => [{ value: 'srv-4471', source: 'viewer-selection' }]), 2);
const disposition: Disposition = choices.length === 0 ? 'not-applicable' : answer.findings.length > 0 ? 'checked-fail' : 'checked-pass';
ledger.note('unsupported-argument', 'choice', disposition, 2);
for (const excusal of answer.externalGroundings) {
  const { toolName, toolCallId, path, value, source }: ExternalGrounding = excusal;
  console.info(`${toolName} ${toolCallId}: ${path} = ${value} vouched for by ${source}`);
}
for (const finding of answer.findings) {
  const path: string | undefined = finding.predicate;
  const chosen: unknown = finding.witnesses[0]?.value;
  console.warn(finding.kind, finding.seam, path, chosen, finding.message);
}

const composed = dangling(request, new Set(['whats_here']), 3);
ledger.note('dangling-reference', 'compose', composed.length > 0 ? 'checked-fail' : 'checked-pass', 3);
const rows: readonly CheckReport[] = ledger.report();
const fired: Array<number | undefined> = rows.map((row) => row.lastFiredAt);
void fired;
ledger.assertAlive({ workExisted: true });

// The same run kept in a RunCorpus: each message pushed once, evicted as the window drops it.
const corpus = new RunCorpus();
const ids: number[] = request.messages.map((m) => {
  const entry: RunEntry = m.role === 'tool' && m.toolName !== undefined ? { role: m.role, text: m.content, toolName: m.toolName } : { role: m.role, text: m.content };
  return corpus.push(entry);
});
const result: ProducedResult = { toolName: 'fleet_report', text: 'FLEET: callisto-02' };
const resultId: number = corpus.push(result);
corpus.evict([ids[0] ?? 0, resultId]);
const sizes: [number, number] = [corpus.length, corpus.windowLength];
void sizes;
const systemPrompt = request.systemPrompt;
const atChoice = corpus.unsupportedArgumentsOf(choices, systemPrompt === undefined ? {} : { systemPrompt, external: [{ value: 'srv-4471', source: 'viewer-selection' }] }, 4);
const atChoiceAnswer: UnsupportedArguments = atChoice;
const atChoiceDisposition: Disposition = atChoice.disposition;
ledger.note('unsupported-argument', 'choice', atChoiceDisposition, 4);
void atChoiceAnswer;
const atCompose = corpus.danglingReferencesOf([{ name: 'backup_status', argumentsFrom: ['fleet_report'] }], 5);
const composeFindings: readonly ContextError[] = atCompose.findings;
ledger.note('dangling-reference', 'compose', atCompose.disposition, 5);
void composeFindings;
const atWrite: EmptyLookupEncounter = corpus.emptyLookupOf(
  { toolName: 'backup_status', toolCallId: 'call-3', args: { machine: 'callisto-02' }, argumentsFrom: ['fleet_report'], reading: readLookupResult([], false) },
  6,
);
void atWrite;
corpus.clear();

// ProducedCorpus still reads as it did for empty-lookup's users.
const produced = new ProducedCorpus();
produced.push({ toolName: 'fabric_inventory', text: '20:00:00:25:b5:aa:00:1f' });
const producedCount: number = produced.length;
void producedCount;
const asRun: RunCorpus = produced;
void asRun;

// The readonly and exact surface stays so.
// @ts-expect-error findings is a readonly array
answer.findings.push(answer.findings[0]!);
// @ts-expect-error excusals are readonly
answer.externalGroundings[0]!.source = 'forged';
// @ts-expect-error declaredEnums is a set, not a list
const listed: ArgumentChoice = { toolName: 't', toolCallId: 'c', args: {}, argumentsFrom: [], declaredEnums: ['nightly'] };
void listed;
// @ts-expect-error under exactOptionalPropertyTypes an absent fence is left out, not undefined
const undefinedFence: ArgumentChoice = { toolName: 't', toolCallId: 'c', args: {}, argumentsFrom: [], declaredEnums: undefined };
void undefinedFence;
// @ts-expect-error a corpus needs its assistant turns, even when there are none
const halfCorpus: ChoiceCorpus = { grounded: [] };
void halfCorpus;
// @ts-expect-error an external ground needs its source
const unlabelled: ExternalGround = { value: 'srv-4471' };
void unlabelled;
// @ts-expect-error the sets are ReadonlySet<string>, not arrays
danglingReferencesOf([], ['whats_here'], new Set<string>(), 1);
// @ts-expect-error a served tool needs its grounds
const groundless: ServedGroundedTool = { name: 'screen_fire' };
void groundless;
// @ts-expect-error roles are the four words
corpus.push({ role: 'developer', text: 'x' });
// @ts-expect-error evict takes ids
corpus.evict('0');
// @ts-expect-error windowLength is read-only
corpus.windowLength = 0;
// @ts-expect-error the request's system prompt is a string when given
corpus.unsupportedArgumentsOf(choices, { systemPrompt: 42 }, 1);
// @ts-expect-error the request has no corpus fields of its own
corpus.unsupportedArgumentsOf(choices, { grounded: [] }, 1);
// @ts-expect-error the corpus method takes the tools and the epoch only
corpus.danglingReferencesOf([], new Set<string>(), new Set<string>(), 1);
// @ts-expect-error a disposition is one of the four words
const unknownDisposition: Disposition = 'skipped';
void unknownDisposition;

// The claim seam's reading of an answer.
const ticket: ValueShape = { name: 'ticket', match: /[a-z]{3}-[a-z]{4}/ };
const valueOptions: AnswerValuesOptions = { shapes: [ticket], exempt: ['FC1/3', /build-\d+/], minDigits: 4, figures: true };
const claimed: AnswerValue[] = answerValuesOf('fc1/3 at 41,200 IOPS', valueOptions);
const firstClaim: AnswerValue | undefined = claimed[0];
const glued: string | undefined = firstClaim?.token;
const spelt: string = normalizeValue('$41,200.');
void [answerValuesOf('no options'), glued, spelt];
// @ts-expect-error a shape's match is a RegExp, not a source
answerValuesOf('x', { shapes: [{ name: 'a', match: 'a+' }] });
// @ts-expect-error exempt takes strings and RegExps
answerValuesOf('x', { exempt: [42] });
