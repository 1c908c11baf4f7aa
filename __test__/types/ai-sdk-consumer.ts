// A TypeScript consumer of `seamguard/ai-sdk`, with the AI SDK's own types.
// It has its own tsconfig (tsconfig.ai-sdk.json): the `ai` typings need
// Node's types and do not compile under exactOptionalPropertyTypes.
import { streamText, wrapLanguageModel, type LanguageModelMiddleware } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { ScaffoldingFilter } from 'seamguard';
import { scaffoldingMiddleware } from 'seamguard/ai-sdk';

const middleware: LanguageModelMiddleware = scaffoldingMiddleware();
const model = wrapLanguageModel({ model: new MockLanguageModelV3(), middleware });
const result = streamText({ model, prompt: 'hi' });
const text: PromiseLike<string> = result.text;
void text;

// The middleware takes what ScaffoldingFilter's constructor takes, and the
// recovery's two options.
import type { RecoverEvent, ScaffoldingMiddlewareOptions } from 'seamguard/ai-sdk';
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const sameOptions: Same<Parameters<typeof scaffoldingMiddleware>[0], ScaffoldingMiddlewareOptions | undefined> = true;
void sameOptions;
const filterOptions: NonNullable<ConstructorParameters<typeof ScaffoldingFilter>[number]> = { openSpanAtEnd: 'drop' };
const recovering = scaffoldingMiddleware({
  ...filterOptions,
  recover: true,
  onRecover: ({ round, stripped, recovered }: RecoverEvent) => console.warn(round, stripped.length, recovered),
});
void recovering;
// @ts-expect-error recover is a boolean
scaffoldingMiddleware({ recover: 'yes' });

// Healing, with the offered tools read from each call, or given.
import type { HealEvent } from 'seamguard/ai-sdk';
import { SCAFFOLD_SPECIAL_TOKENS } from 'seamguard';
const healing = scaffoldingMiddleware({
  heal: true,
  onHeal: ({ calls, stripped }: HealEvent) => console.warn(calls.map((call) => `${call.toolName}#${call.toolCallId}`), stripped.length),
  patterns: SCAFFOLD_SPECIAL_TOKENS,
  tools: ['get_weather', { name: 'read_file', parameters: ['path'] }],
  onStrip: (event) => {
    for (const call of event.calls ?? []) console.warn(call.name, call.input ?? call.rawInput);
  },
});
void healing;
// @ts-expect-error a tool's parameters are names
scaffoldingMiddleware({ tools: [{ name: 'x', parameters: 'path' }] });

// @ts-expect-error the middleware is not a model
wrapLanguageModel({ model: middleware, middleware });
