// A TypeScript consumer of `seamguard/mastra`, compiled against Mastra's own
// types (tsconfig.mastra.json: Mastra's bundled declarations do not compile
// without skipLibCheck).
import type { GuardOptions } from 'seamguard/mastra';

const options: GuardOptions = { argumentsFrom: { port_for_device: ['fabric_inventory'] }, onFinding: (finding) => console.log(finding.kind) };

// Mastra
import { Agent as MastraAgent } from '@mastra/core/agent';
import { createGuard as createMastraGuard, type Guard as MastraGuard } from 'seamguard/mastra';

declare const mastraModel: ConstructorParameters<typeof MastraAgent>[0]['model'];
const mastraGuard: MastraGuard = createMastraGuard(options);
const mastraAgent = new MastraAgent({
  id: 'triage',
  name: 'triage',
  instructions: 'You triage.',
  model: mastraModel,
  inputProcessors: [mastraGuard],
  outputProcessors: [mastraGuard],
});
export async function generated(): Promise<string> {
  const { text } = await mastraAgent.generate('Which port?');
  return `${text} (${mastraGuard.findings.length})`;
}
// @ts-expect-error posture is 'dev' or 'prod'
createMastraGuard({ posture: 'staging' });

// stopOn: the run ends with Mastra's tripwire, the findings in its metadata.
import type { ActedFindings } from 'seamguard/mastra';
const stoppingMastra = createMastraGuard({ ...options, stopOn: true });
const stoppingAgent = new MastraAgent({ id: 'triage', name: 'triage', instructions: 'You triage.', model: mastraModel, inputProcessors: [stoppingMastra], outputProcessors: [stoppingMastra] });
export async function tripwire(): Promise<number> {
  const result = await stoppingAgent.generate('Which port?');
  return (result.tripwire?.metadata as ActedFindings | undefined)?.findings.length ?? 0;
}
