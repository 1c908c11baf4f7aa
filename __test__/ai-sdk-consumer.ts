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

// The middleware takes exactly what ScaffoldingFilter's constructor takes.
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const sameOptions: Same<
  Parameters<typeof scaffoldingMiddleware>[0],
  ConstructorParameters<typeof ScaffoldingFilter>[number] | undefined
> = true;
void sameOptions;

// @ts-expect-error the middleware is not a model
wrapLanguageModel({ model: middleware, middleware });
