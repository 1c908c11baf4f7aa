// A TypeScript consumer of `seamguard/streams`, compiled under `strict` with
// nodenext resolution (npm test runs `tsc -p __test__/types`), importing by
// package name so the exports map and its typings are what is checked.
import type { ScaffoldingFilter } from 'seamguard';
import {
  scaffoldingTransform,
  stripScaffolding,
  type ScaffoldingTransformStream,
  type StrippedText,
} from 'seamguard/streams';

// Piping a stream of deltas.
async function pipe(deltas: ReadableStream<string>): Promise<{ text: string; spans: string[] }> {
  const transform: ScaffoldingTransformStream = scaffoldingTransform();
  const clean: ReadableStream<string> = deltas.pipeThrough(transform);
  let text = '';
  for await (const piece of clean) text += piece;
  return { text, spans: transform.filter.strippedSpans };
}
void pipe;

// Iterating a framework's async iterable of chat chunks.
async function* deltasOf(chunks: AsyncIterable<{ content?: string }>): AsyncGenerator<string> {
  for await (const chunk of chunks) yield chunk.content ?? '';
}
async function iterate(chunks: AsyncIterable<{ content?: string }>): Promise<number> {
  const clean: StrippedText = stripScaffolding(deltasOf(chunks));
  for await (const piece of clean) {
    const visible: string = piece;
    void visible;
  }
  return clean.filter.strippedChars;
}
void iterate;
const fromArray: AsyncGenerator<string, void, undefined> = stripScaffolding(['a', 'b']);
void fromArray;

// Each adapter takes exactly what ScaffoldingFilter's constructor takes.
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type FilterOptions = ConstructorParameters<typeof ScaffoldingFilter>[number] | undefined;
const sameOptions: [
  Same<Parameters<typeof scaffoldingTransform>[0], FilterOptions>,
  Same<Parameters<typeof stripScaffolding>[1], FilterOptions>,
] = [true, true];
void sameOptions;

// @ts-expect-error the source must yield strings
stripScaffolding([1, 2]);
// @ts-expect-error the transform reads strings
const numbers: TransformStream<number, string> = scaffoldingTransform();
void numbers;
// @ts-expect-error the filter is read-only
scaffoldingTransform().filter = scaffoldingTransform().filter;
