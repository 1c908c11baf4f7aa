// The filter against leaks users reported. fixtures/real-leaks.json holds
// answers as public issue threads showed them (each case names its report,
// owner/repo#number) and the clean text a user should have seen;
// docs/preset-sources.md says where each family's format is defined. Every
// case whose family has a preset must come out clean under that preset,
// fed whole, a unit at a time and in random cuts, with openSpanAtEnd:
// 'drop' (several reports are cut off inside the call).
//
// Each such case must also come out clean under the union of every preset
// (`Object.values(SCAFFOLD_PRESETS).flat()`), the "catch everything we
// know" registry.
//
// And every case, whatever its family (those no preset knows are the point),
// must come out clean under tool-aware detection alone: `new
// ScaffoldingFilter({ tools, openSpanAtEnd: 'drop' })` with `tools` the
// names of the tools the leaked text calls (the case's `tools`), in the same
// chunkings, every strip it makes naming only those tools. A case that calls
// a tool not on offer, or names none, lists what was offered (`offered`):
// detection is given that list, and each call to another tool must say
// `offered: false`.
//
// And every case must come out clean under the guards' default options (the
// offered tools with SCAFFOLD_SPECIAL_TOKENS, `openSpanAtEnd: 'emit'`),
// what every framework guard runs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ScaffoldingFilter, SCAFFOLD_PRESETS, SCAFFOLD_SPECIAL_TOKENS } from 'seamguard';
import { chunkings } from '../support/helpers.mjs';

const { cases } = JSON.parse(readFileSync(new URL('../fixtures/real-leaks.json', import.meta.url), 'utf8'));

const NAMES_NO_TOOL =
  'names no tool: tool-aware detection finds a call by the name of a tool it was offered, and this text holds '
  + 'nothing but an opener or end token (only a preset, which knows the literal marker, strips it)';

// Cases a detection cannot clean yet, each with the exact reason: `preset`
// for the family's preset (and the union of presets), `tools` for
// tool-aware detection. Each must really still fail (checked below), so the
// list cannot outlive a fix.
const NOT_YET = {
  'llama3-torchchat-eot-as-text': { tools: NAMES_NO_TOOL },
  'llama3-metagpt-eom-only': { tools: NAMES_NO_TOOL },
  'dsml-opensquilla-v4-flash-multi-invoke': {
    tools: "the reporter's '...' elision stands between the last invoke and </｜DSML｜tool_calls>: a wrapper "
      + 'closes only right after its calls (a closer past prose would swallow an answer), so the leak ends after '
      + 'the second invoke and the elision and the closer stay',
  },
  'minimax-m3-namespaced-delimiters': {
    tools: 'MiniMax M3 writes its own ]<]minimax[>[ delimiter before every tag, inside the parameter values '
      + 'too (…main.rs]<]minimax[>[</path>): that is no special token, tag, marker or fence the grammar reads, so '
      + 'nothing of the call is found; only the minimax preset knows that delimiter',
  },
};

/** Every preset at once, in `SCAFFOLD_PRESETS` order. */
const UNION = Object.values(SCAFFOLD_PRESETS).flat();

function clean(patterns, chunks) {
  const filter = new ScaffoldingFilter({ patterns, openSpanAtEnd: 'drop' });
  return chunks.map((chunk) => filter.feed(chunk)).join('') + filter.flush();
}

function toolAware(tools, chunks, options = { openSpanAtEnd: 'drop' }) {
  const strips = [];
  const filter = new ScaffoldingFilter({ tools, ...options, onStrip: (event) => strips.push(event) });
  const out = chunks.map((chunk) => filter.feed(chunk)).join('') + filter.flush();
  return { out, strips };
}

/** The guards' default options, less the tools. */
const GUARD_DEFAULTS = { patterns: SCAFFOLD_SPECIAL_TOKENS };

/** Whether tool-aware detection cleans the case in every chunking. */
function cleanedByTools({ leaked, clean: expected, tools, offered }, seed) {
  return chunkings(leaked, seed).every((chunks) => toolAware(offered ?? tools, chunks).out === expected);
}

/** Every call a tool-aware strip reports names one of the case's tools, marked when it was not on offer. */
function checkCalls(strips, tools, offered = tools) {
  for (const strip of strips.filter((s) => s.pattern === -1)) {
    for (const call of strip.calls) {
      assert.ok(tools.includes(call.name), `${call.name} is one of the case's tools`);
      assert.equal(call.offered === false, !offered.includes(call.name), `${call.name}: offered is false exactly when it was not on offer`);
    }
  }
}

describe('leaks users reported, under their family preset', () => {
  for (const [index, { id, family, source, leaked, clean: expected }] of cases.entries()) {
    const patterns = SCAFFOLD_PRESETS[family];
    if (patterns === undefined) continue;
    it(`${id} (${source})`, { todo: NOT_YET[id]?.preset }, () => {
      for (const chunks of chunkings(leaked, 1000 + index)) {
        assert.equal(clean(patterns, chunks), expected, `${chunks.length} chunks`);
        assert.equal(clean(UNION, chunks), expected, `${chunks.length} chunks, every preset`);
      }
    });
  }
});

describe('leaks users reported, under tool-aware detection with the tools they call', () => {
  for (const [index, { id, family, source, leaked, clean: expected, tools, offered }] of cases.entries()) {
    const label = SCAFFOLD_PRESETS[family] === undefined ? `${id} (${source}; ${family}: no preset)` : `${id} (${source})`;
    it(label, { todo: NOT_YET[id]?.tools }, () => {
      assert.ok(Array.isArray(tools), 'the case lists the tools it calls');
      for (const chunks of chunkings(leaked, 3000 + index)) {
        const { out, strips } = toolAware(offered ?? tools, chunks);
        assert.equal(out, expected, `${chunks.length} chunks`);
        checkCalls(strips, tools, offered);
      }
    });
  }
});

describe("leaks users reported, under the guards' default options (the tools offered, every family's special tokens, emit at the end)", () => {
  for (const [index, { id, source, leaked, clean: expected, tools, offered }] of cases.entries()) {
    // (What tool-aware detection cannot clean yet, the special tokens do not either.)
    it(`${id} (${source})`, { todo: NOT_YET[id]?.tools }, () => {
      for (const chunks of chunkings(leaked, 5000 + index)) {
        const { out, strips } = toolAware(offered ?? tools, chunks, GUARD_DEFAULTS);
        assert.equal(out, expected, `${chunks.length} chunks`);
        checkCalls(strips, tools, offered);
      }
    });
  }
});

describe('the fixture', () => {
  it('lists as not yet only cases that exist and really still fail, each with its reason', () => {
    for (const [id, reasons] of Object.entries(NOT_YET)) {
      const index = cases.findIndex((c) => c.id === id);
      assert.ok(index >= 0, id);
      const c = cases[index];
      assert.ok(reasons.preset || reasons.tools, `${id} says why`);
      if (reasons.tools) assert.ok(!cleanedByTools(c, 3000 + index), `${id} is cleaned by tool-aware detection now: take it off the list`);
      if (reasons.preset) {
        const patterns = SCAFFOLD_PRESETS[c.family];
        assert.notEqual(clean(patterns, [c.leaked]), c.clean, `${id} is cleaned by its preset now: take it off the list`);
      }
    }
  });

  it('covers every preset with a report; a family without one is read by tool-aware detection alone', () => {
    const families = new Set(cases.map((c) => c.family));
    for (const name of Object.keys(SCAFFOLD_PRESETS)) assert.ok(families.has(name), `${name} has a case`);
    const unknown = cases.filter((c) => SCAFFOLD_PRESETS[c.family] === undefined);
    assert.ok(unknown.length >= 5, 'several families no preset knows');
  });

  it('gives each case its report, its tools and a unique id', () => {
    for (const c of cases) {
      assert.match(c.source, /^[\w.-]+\/[\w.-]+#\d+$/, c.id);
      assert.ok(Array.isArray(c.tools) && c.tools.every((name) => typeof name === 'string' && name !== ''), c.id);
      for (const name of c.tools) assert.ok(c.leaked.includes(name), `${c.id}: ${name} is named in the leaked text`);
      if (c.offered !== undefined) {
        assert.ok(Array.isArray(c.offered) && c.offered.length > 0, c.id);
        assert.ok(c.tools.length === 0 || c.tools.some((name) => !c.offered.includes(name)),
          `${c.id}: offered is listed only when the text calls a tool not on offer, or names none`);
      }
    }
    assert.equal(new Set(cases.map((c) => c.id)).size, cases.length);
  });
});
