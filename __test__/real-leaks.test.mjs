// The filter against leaks users reported. fixtures/real-leaks.json holds
// answers as public issue threads showed them (each case names its report,
// owner/repo#number) and the clean text a user should have seen;
// docs/preset-sources.md says where each family's format is defined. Every
// case whose family has a preset must come out clean under that preset,
// fed whole, a unit at a time and in random cuts, with openSpanAtEnd:
// 'drop' (several reports are cut off inside the call).
//
// The cases the engine cannot clean yet are listed below with the reason,
// as todo tests: they run, and report, but do not fail the suite. They are
// the real-leaks issue's to fix, and each must leave this list when it
// passes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ScaffoldingFilter, SCAFFOLD_PRESETS } from 'seamguard';
import { rng } from './helpers.mjs';

const { cases } = JSON.parse(readFileSync(new URL('./fixtures/real-leaks.json', import.meta.url), 'utf8'));

const NOT_YET = {
  'llama3-torchchat-eot-as-text': '<|eot_id|> on its own: a token the preset does not list yet',
  'llama3-metagpt-eom-only': "<|eom_id|> on its own: a token beside the span's end literal, which the registry refuses",
  'mistral-devstral-sglang-args': '[TOOL_CALLS]NAME[ARGS]{…}: the name and the JSON body after the token',
  'mistral-devstral-rapidmlx-args': '[TOOL_CALLS]NAME[ARGS]{…}: the name and the JSON body after the token',
  'kimi-vllm-inner-call-no-section': 'an inner call without its section: literals inside the section span',
  'kimi-typeclaw-fireworks-missing-opener': 'calls with no opener, closed by stray section ends',
  'minimax-m3-namespaced-delimiters': "MiniMax M3's ]<]minimax[>[ dialect",
  'minimax-m27-bracket-tool-call': "MiniMax's [TOOL_CALL]…[/TOOL_CALL] dialect",
  'qwen3coder-antseed-naked-function': 'a stray </tool_call> after a naked block: a token that is also a span end',
  'qwen3coder-ollama-read-no-opener': 'a stray </tool_call> after a naked block: a token that is also a span end',
  'qwen3coder-ollama-exec-command': 'a stray </tool_call> after a naked block: a token that is also a span end',
  'qwen3coder-omlx-prose-then-call': 'a stray </tool_call> after a naked block: a token that is also a span end',
  'qwen3coder-rapidmlx-stream-prefix-only': 'a partial opener left at the very end, which flush returns as text',
  'dsml-stdapi-v32-trailing-opener': 'a partial opener left at the very end, which flush returns as text',
  'dsml-pi-v4-flash-nvidia-marker': 'a partial opener left at the very end, which flush returns as text',
};

/** Chunkings of `text`: whole, a unit at a time, and seeded random cuts. */
function chunkings(text, seed) {
  const r = rng(seed);
  const random = [];
  for (let at = 0; at < text.length; ) {
    const end = Math.min(text.length, at + 1 + r.below(12));
    random.push(text.slice(at, end));
    at = end;
  }
  return [[text], Array.from(text.split(''), (unit) => unit), random];
}

function clean(patterns, chunks) {
  const filter = new ScaffoldingFilter({ patterns, openSpanAtEnd: 'drop' });
  return chunks.map((chunk) => filter.feed(chunk)).join('') + filter.flush();
}

describe('leaks users reported', () => {
  for (const [index, { id, family, source, leaked, clean: expected }] of cases.entries()) {
    const patterns = SCAFFOLD_PRESETS[family];
    const todo = patterns === undefined ? `no ${family} preset yet` : NOT_YET[id];
    it(`${id} (${source})`, { todo }, () => {
      assert.ok(patterns, `a ${family} preset`);
      for (const chunks of chunkings(leaked, 1000 + index)) {
        assert.equal(clean(patterns, chunks), expected, `${chunks.length} chunks`);
      }
    });
  }

  it('lists as not yet only cases that exist', () => {
    const ids = new Set(cases.map((c) => c.id));
    for (const id of Object.keys(NOT_YET)) assert.ok(ids.has(id), id);
  });
});
