// The README's blocks for the guard, the run corpus and ScaffoldingFilter.strip, as written: each
// type-checks under `strict` against ai 6 and ai 7, and those that are plain
// JavaScript in TypeScript's clothes run (the guard's first block prints
// what the README says it prints).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((match) => ({ lang: match[1], code: match[2], at: match.index }));
const guardBlocks = blocks.filter((block) => block.lang === 'ts' && block.code.includes("from 'seamguard/ai-sdk'") && block.code.includes('createGuard'));
const corpusBlock = blocks.find((block) => block.lang === 'ts' && block.code.includes('const run = new RunCorpus();'));
const stripBlock = blocks.find((block) => block.lang === 'ts' && block.code.includes('ScaffoldingFilter.strip(text)'));
const toolsBlock = blocks.find((block) => block.lang === 'ts' && block.code.includes("const tools = ['get_weather'"));
const checked = [...guardBlocks, corpusBlock, stripBlock, toolsBlock];
const work = join(here, '.readme');

test('the README has the guard blocks, the corpus block, the strip block and the tools block', () =>
  assert.ok(guardBlocks.length >= 2 && corpusBlock !== undefined && stripBlock !== undefined && toolsBlock !== undefined));

/** Runs one block as an ES module and returns what it printed. */
function printedBy(block, name) {
  mkdirSync(work, { recursive: true });
  try {
    writeFileSync(join(work, name), block.code);
    return execFileSync(process.execPath, [join(work, name)], { encoding: 'utf8' });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

test('the run corpus block runs', () => {
  assert.equal(printedBy(corpusBlock, 'corpus.mjs'), 'checked-pass\nchecked-fail served by nothing in the window the model saw\nnot-applicable\n');
});

test('the strip block runs and prints what its comments say', () => {
  assert.equal(printedBy(stripBlock, 'strip.mjs'), "[ 'Sure.', 'Done <tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>' ]\nDone \n");
});

test('the tools block runs and prints what the README shows', () => {
  const shown = blocks.find((block) => block.lang === 'text' && block.at > toolsBlock.at);
  assert.equal(printedBy(toolsBlock, 'tools.mjs'), shown.code);
});

test('the first guard block runs and prints what the README shows', () => {
  const [first] = guardBlocks;
  const shown = blocks.find((block) => block.lang === 'text' && block.at > first.at);
  assert.equal(printedBy(first, 'guard.mjs'), shown.code);
});

test('each of those blocks type-checks under strict, against ai 6 and ai 7', () => {
  mkdirSync(work, { recursive: true });
  try {
    const files = checked.map((block, i) => {
      const name = `block-${i}.mts`;
      writeFileSync(join(work, name), block.code);
      return name;
    });
    const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
    for (const base of ['tsconfig.ai-sdk.json', 'tsconfig.ai-sdk7.json']) {
      writeFileSync(join(work, 'tsconfig.json'), JSON.stringify({ extends: `../${base}`, files }));
      execFileSync(process.execPath, [tsc, '-p', join(work, 'tsconfig.json')], { encoding: 'utf8' });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

// The other frameworks' blocks ("Other frameworks: LangChain.js, the OpenAI
// Agents SDK, Mastra"): each runs and prints what the README shows after it
// (the Agents SDK and Mastra only where they run, Node 22 and later; skipped,
// and saying so, under Node 20), and type-checks under strict against its
// framework's own types (tsconfig.frameworks.json, tsconfig.mastra.json).
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const frameworks = [
  { entry: 'langchain', tsconfig: 'tsconfig.frameworks.json', node: 20 },
  { entry: 'openai-agents', tsconfig: 'tsconfig.frameworks.json', node: 22 },
  { entry: 'mastra', tsconfig: 'tsconfig.mastra.json', node: 22 },
].map((framework) => ({
  ...framework,
  block: blocks.find((block) => block.lang === 'ts' && block.code.includes(`from 'seamguard/${framework.entry}'`)),
}));

test('the README has a block for each other framework', () => assert.ok(frameworks.every(({ block }) => block !== undefined)));

for (const { entry, node, block } of frameworks) {
  const skip = NODE_MAJOR < node ? `seamguard/${entry}'s framework needs Node ${node} or later; this is Node ${process.versions.node}` : false;
  test(`the seamguard/${entry} block runs and prints what the README shows`, { skip }, () => {
    const shown = blocks.find((other) => other.lang === 'text' && other.at > block.at);
    assert.equal(printedBy(block, `${entry}.mjs`), shown.code);
  });
}

test('the other frameworks\' blocks type-check under strict, against their frameworks\' types', () => {
  mkdirSync(work, { recursive: true });
  try {
    const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
    for (const tsconfig of new Set(frameworks.map((framework) => framework.tsconfig))) {
      const files = frameworks.filter((framework) => framework.tsconfig === tsconfig).map(({ entry, block }) => {
        writeFileSync(join(work, `${entry}.mts`), block.code);
        return `${entry}.mts`;
      });
      writeFileSync(join(work, 'tsconfig.json'), JSON.stringify({ extends: `../${tsconfig}`, files }));
      execFileSync(process.execPath, [tsc, '-p', join(work, 'tsconfig.json')], { encoding: 'utf8' });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
