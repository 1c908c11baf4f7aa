// An ES module consumer of every entry, by name, as a user's .mts file or
// bundled project imports them: the `import` condition of the exports map,
// whose typings are lib/esm/*.d.mts. Compiled under `moduleResolution`
// node16, nodenext and bundler (tsconfig.esm-*.json);
// __test__/package/install.test.mjs checks that those are the typings read.
import seamguard, { ScaffoldingFilter, RunCorpus, readLookupResult, type ContextError, type EmptyLookupEncounter } from 'seamguard';
import { stripScaffolding, type StrippedText } from 'seamguard/streams';
import { createGuard as aiSdkGuard, scaffoldingMiddleware, type Guard as AiSdkGuard } from 'seamguard/ai-sdk';
import { createGuard as langchainGuard } from 'seamguard/langchain';
import { createGuard as agentsGuard } from 'seamguard/openai-agents';
import { createGuard as mastraGuard } from 'seamguard/mastra';

const shown: string = ScaffoldingFilter.strip('Port 7 is free.<|tool_call_start|>[port_for_device(device="sw-17")]<|tool_call_end|>');
const same: typeof ScaffoldingFilter = seamguard.ScaffoldingFilter;
const corpus = new RunCorpus();
corpus.push({ toolName: 'fabric_inventory', text: 'switch sw-17 has ports 1-48' });
const encounter: EmptyLookupEncounter = corpus.emptyLookupOf(
  { toolName: 'port_for_device', toolCallId: 'c1', args: { device: 'sw-17' }, argumentsFrom: ['fabric_inventory'], reading: readLookupResult([], false) },
  1,
);
const findings: readonly ContextError[] = encounter.findings;
const stripped: StrippedText = stripScaffolding('ok');
const guard: AiSdkGuard = aiSdkGuard({ onFinding: (finding: ContextError) => console.log(finding.kind) });
void [shown, same, findings, stripped, guard, scaffoldingMiddleware(), langchainGuard(), agentsGuard(), mastraGuard()];

// @ts-expect-error: a name no entry exports
import { notExported } from 'seamguard';
void notExported;
