// Every code block of README.md and docs/*.md, as written.
//
// The blocks are the fenced ```ts, ```typescript, ```js, ```javascript and
// ```mjs blocks of each page (a fence may be indented, as in a list item; the
// block is dedented). Shell and text blocks are not code. For each block:
//
// - Two AI SDK majors. A block that imports `ai` (or `ai/test`) or
//   `seamguard/ai-sdk` is written for ai 7, with its mock model
//   `MockLanguageModelV4`; the pages say that under ai 6 the mock is
//   `MockLanguageModelV3` and nothing else changes, so the block's ai 6
//   form is that one name changed, and both forms are checked and run.
// - Type check. The block is written to __test__/.readme/ as an ES module
//   (`.mts`; its ai 6 form `-ai6.mts`) and checked under `strict` in the
//   test projects its imports call for: `@mastra/*` or `seamguard/mastra`,
//   tsconfig.mastra.json, and tsconfig.mastra7.json too when it imports
//   `ai`; LangChain, `@openai/agents` or their seamguard entries,
//   tsconfig.frameworks.json; `ai` or `seamguard/ai-sdk`,
//   tsconfig.ai-sdk.json and tsconfig.ai-sdk7.json; anything else,
//   tsconfig.json. The projects named 7 map `ai` to ai 7 (`ai-v7`) and
//   check the block as written; the others check its ai 6 form. Each project is checked
//   once over all its blocks, under TypeScript 5.9 (`typescript`) and 7
//   (`typescript-7`), with two options added: `verbatimModuleSyntax` (an
//   import of a type says `import type`, so the JavaScript below imports
//   only values) and `erasableSyntaxOnly` (no enums or namespaces, so types
//   are all there is to remove).
// - No DOM-only names. A global that only the DOM lib declares and Node does
//   not have (`prompt` is `window.prompt` to tsc) is an error: the block
//   forgot to define it.
// - Run, unless its first line is `// excerpt` (a declaration excerpt is type
//   checked only). Its types are removed with TypeScript's `transpileModule`,
//   which under the options above changes nothing else, and the JavaScript
//   runs with this Node from __test__/.readme/, where `seamguard` is this
//   package and every other import a dev dependency. A block that imports
//   `ai` runs as written against ai 7 (its imports of `ai` pointed at
//   `ai-v7`) where ai 7 runs, Node 22 and later, and in its ai 6 form
//   against ai 6. A block for a framework that needs a newer Node than this
//   one (the OpenAI Agents SDK 22, Mastra 22.13) is skipped with the
//   reason; it is still type-checked.
// - Output. When the next fenced block after it is a ```text block, what the
//   run printed must be exactly that text; otherwise it must print nothing,
//   so everything a block prints is on the page. A ```text block right after
//   an excerpt is an error.
//
// And every relative link of those pages reaches a file, and each `#anchor`
// a heading of it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { after, describe, it, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const ts = require('typescript');
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const work = join(root, '__test__', '.readme', String(process.pid));

const NODE = process.versions.node.split('.').map(Number);
const atLeast = ([major, minor = 0]) => NODE[0] > major || (NODE[0] === major && NODE[1] >= minor);

const CODE = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs']);
/** Languages that look like code this test would have to run, but cannot: a page must not use them. */
const UNHANDLED = new Set(['tsx', 'jsx', 'cjs', 'mts', 'cts']);

const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];

/** The fenced blocks of a page, in order: language, dedented text, the line its code starts on. */
function fencedBlocks(text) {
  const lines = text.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,}|~{3,})\s*([\w-]*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const body = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^( *)(`{3,}|~{3,})\s*$/.exec(lines[j]);
      if (close && close[2][0] === fence[0] && close[2].length >= fence.length) break;
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    assert.ok(j < lines.length, `a fence opened at line ${i + 1} never closes`);
    blocks.push({ lang, code: body.length ? `${body.join('\n')}\n` : '', line: i + 2 });
    i = j;
  }
  return blocks;
}

const IMPORT = /^\s*(?:import|export)\b[^'"`]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;
const importsOf = (code) => [...code.matchAll(IMPORT)].map((match) => match[1] ?? match[2] ?? match[3]);

const MASTRA = (name) => name.startsWith('@mastra/') || name === 'seamguard/mastra';
const AGENTS = (name) => name === '@openai/agents' || name.startsWith('@openai/agents/') || name === 'seamguard/openai-agents';
const LANGCHAIN = (name) => name === 'langchain' || name.startsWith('langchain/') || name.startsWith('@langchain/') || name === 'seamguard/langchain';
const AI = (name) => name === 'ai' || name.startsWith('ai/') || name === 'seamguard/ai-sdk';

/** The test projects a block is type-checked in, from its imports. */
function projectsFor(imports) {
  if (imports.some(MASTRA)) return imports.some(AI) ? ['tsconfig.mastra.json', 'tsconfig.mastra7.json'] : ['tsconfig.mastra.json'];
  if (imports.some((name) => AGENTS(name) || LANGCHAIN(name))) return ['tsconfig.frameworks.json'];
  if (imports.some(AI)) return ['tsconfig.ai-sdk.json', 'tsconfig.ai-sdk7.json'];
  return ['tsconfig.json'];
}

/** The projects that check a block's ai 6 form: those without ai 7 mapped in. */
const AI6_PROJECTS = new Set(['tsconfig.ai-sdk.json', 'tsconfig.mastra.json']);

/** A block's ai 6 form: its ai 7 mock model's name changed to ai 6's, as the pages say. */
const ai6Form = (code) => code.replace(/\bMockLanguageModelV4\b/g, 'MockLanguageModelV3');

/** Why this Node cannot run the block, or `false`. */
function cannotRun(imports) {
  if (imports.some(MASTRA) && !atLeast([22, 13])) return `@mastra/core needs Node 22.13 or later; this is Node ${process.versions.node}`;
  if (imports.some(AGENTS) && !atLeast([22])) return `@openai/agents needs Node 22 or later (its openai 7 does); this is Node ${process.versions.node}`;
  return false;
}

/** Every code block of every page, with what the test does with it. */
const blocks = [];
const found = [];
for (const page of pages) {
  const text = readFileSync(join(root, page), 'utf8');
  const fenced = fencedBlocks(text);
  const code = [];
  fenced.forEach((block, i) => {
    assert.ok(!UNHANDLED.has(block.lang), `${page}:${block.line - 1}: a \`\`\`${block.lang} block, which this test cannot run; use ts`);
    if (!CODE.has(block.lang)) return;
    const next = fenced[i + 1];
    const excerpt = /^\/\/ excerpt\s*$/m.test(block.code.split('\n', 1)[0]);
    const imports = importsOf(block.code);
    const name = `${page.replace(/\W+/g, '-')}-L${block.line}`;
    code.push({
      page,
      name,
      line: block.line,
      code: block.code,
      excerpt,
      imports,
      projects: projectsFor(imports),
      ai: imports.some(AI),
      skip: excerpt ? false : cannotRun(imports),
      printed: next?.lang === 'text' ? next.code : '',
      textAfterExcerpt: excerpt && next?.lang === 'text',
    });
  });
  // A fence of a code language the parser did not see is a block nothing would check.
  const fences = text.split('\n').filter((line) => /^ *(`{3,}|~{3,}) *(ts|typescript|js|javascript|mjs)\s*$/.test(line)).length;
  found.push({ page, fences, blocks: code.length });
  blocks.push(...code);
}

test('every code block of every page is found, and the README has some', () => {
  for (const { page, fences, blocks: count } of found) {
    assert.equal(count, fences, `${page}: ${fences} code fences, ${count} blocks extracted`);
    if (fences > 0) assert.ok(count > 0, page);
  }
  assert.ok(found.find(({ page }) => page === 'README.md').blocks > 0);
  for (const block of blocks) assert.ok(!block.textAfterExcerpt, `${block.page}:${block.line}: an excerpt does not run, so nothing it prints can follow it`);
});

test("the AI SDK blocks are written for ai 7: none uses ai 6's MockLanguageModelV3", () => {
  const ai6 = blocks.filter((block) => /\bMockLanguageModelV3\b/.test(block.code)).map((block) => `${block.page}:${block.line}`);
  assert.deepEqual(ai6, []);
  assert.ok(blocks.filter((block) => /\bMockLanguageModelV4\b/.test(block.code)).every((block) => block.ai));
});

mkdirSync(work, { recursive: true });
after(() => {
  rmSync(work, { recursive: true, force: true });
  try {
    rmdirSync(dirname(work));   // __test__/.readme, unless another run is using it
  } catch {
    // not empty
  }
});
for (const block of blocks) {
  writeFileSync(join(work, `${block.name}.mts`), block.code);
  if (block.ai) writeFileSync(join(work, `${block.name}-ai6.mts`), ai6Form(block.code));
}

/** The file a project checks a block in: its ai 6 form in an ai 6 project. */
const fileIn = (project, block) => `${block.name}${block.ai && AI6_PROJECTS.has(project) ? '-ai6' : ''}.mts`;

/** A tool's output with each block file's positions given as the page's. */
function onThePage(output) {
  let text = output;
  for (const block of blocks) {
    text = text.replace(new RegExp(`[^\\s(]*${block.name}(-ai6)?\\.mts\\((\\d+),(\\d+)\\)`, 'g'), (_, ai6, row, column) => `${block.page}:${block.line + Number(row) - 1}:${column}${ai6 ? ' (its ai 6 form)' : ''}`);
  }
  return text;
}

/**
 * The block as the JavaScript Node runs: its types removed, nothing else
 * changed; under ai 7 its imports of `ai` go to `ai-v7`, under ai 6 it is
 * its ai 6 form.
 */
function javascriptOf(block, { ai7 = false } = {}) {
  const { outputText } = ts.transpileModule(block.ai && !ai7 ? ai6Form(block.code) : block.code, {
    fileName: `${block.name}.mts`,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
  });
  return ai7 ? outputText.replace(/(from\s*|import\(\s*)(['"])ai(\/[\w/-]+)?\2/g, '$1$2ai-v7$3$2') : outputText;
}

async function printedBy(block, options) {
  const file = join(work, `${block.name}${block.ai ? (options?.ai7 ? '-ai7' : '-ai6') : ''}.mjs`);
  writeFileSync(file, javascriptOf(block, options));
  try {
    const { stdout } = await run(process.execPath, [file], { cwd: work, encoding: 'utf8', timeout: 120_000, maxBuffer: 16 << 20 });
    return stdout;
  } catch (error) {
    assert.fail(onThePage(`${block.page}:${block.line}: the block failed (${error.code ?? error.signal}):\n${error.stderr ?? ''}${error.message}`));
  }
}

describe('each block runs and prints what the page shows after it', { concurrency: 2 }, () => {
  for (const block of blocks) {
    const where = `${block.page}:${block.line}`;
    if (block.excerpt) {
      it(`${where}: an excerpt, type-checked only`, () => assert.ok(block.projects.length > 0));
      continue;
    }
    const shown = block.printed ? 'prints the text after it' : 'prints nothing';
    if (!block.ai) {
      it(`${where}: runs and ${shown}`, { skip: block.skip }, async () => {
        assert.equal(await printedBy(block), block.printed, `${where}: what it printed`);
      });
      continue;
    }
    const skip7 = block.skip || (atLeast([22]) ? false : `ai 7 needs Node 22 or later; this is Node ${process.versions.node}`);
    it(`${where}: runs as written against AI SDK 7 and ${shown}`, { skip: skip7 }, async () => {
      assert.equal(await printedBy(block, { ai7: true }), block.printed, `${where}: what it printed under ai 7`);
    });
    it(`${where}: runs against AI SDK 6 with MockLanguageModelV3 and ${shown}`, { skip: block.skip }, async () => {
      assert.equal(await printedBy(block), block.printed, `${where}: what it printed under ai 6`);
    });
  }
});

describe('the blocks type-check under strict, in the project their imports call for', { concurrency: 2 }, () => {
  const projects = [...new Set(blocks.flatMap((block) => block.projects))].sort();
  for (const typescript of ['typescript', 'typescript-7']) {
    const tsc = join(dirname(require.resolve(`${typescript}/package.json`)), 'bin', 'tsc');
    for (const project of projects) {
      const members = blocks.filter((block) => block.projects.includes(project));
      it(`${project}, ${typescript}: ${members.map((block) => `${block.page}:${block.line}`).join(', ')}`, async () => {
        const config = join(work, `${project.replace('.json', '')}.${typescript}.json`);
        writeFileSync(config, JSON.stringify({
          extends: `../../types/${project}`,
          compilerOptions: { verbatimModuleSyntax: true, erasableSyntaxOnly: true },
          files: members.map((block) => fileIn(project, block)),
        }));
        try {
          await run(process.execPath, [tsc, '-p', config], { cwd: work, encoding: 'utf8', maxBuffer: 16 << 20 });
        } catch (error) {
          assert.fail(onThePage(`tsc -p ${project} (${typescript}) failed:\n${error.stdout}${error.stderr}`));
        }
      });
    }
  }
});

test('no block uses a name only the DOM declares and Node does not have', () => {
  const program = ts.createProgram(blocks.map((block) => join(work, `${block.name}.mts`)), {
    noEmit: true, noResolve: true, types: [], lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext,
  });
  const checker = program.getTypeChecker();
  const domOnly = (declaration) => /[\\/]lib\.dom(\.[\w.]+)?\.d\.ts$/.test(declaration.getSourceFile().fileName);
  // `declare function prompt` sits in the file; `declare var name` in a statement's declaration list.
  const global = (declaration) => [declaration.parent, declaration.parent?.parent?.parent].some((node) => node !== undefined && ts.isSourceFile(node));
  const strays = [];
  for (const block of blocks) {
    const source = program.getSourceFile(join(work, `${block.name}.mts`));
    const visit = (node) => {
      if (ts.isIdentifier(node)) {
        const declarations = checker.getSymbolAtLocation(node)?.declarations ?? [];
        if (declarations.length && declarations.every((d) => domOnly(d) && global(d)) && !(node.text in globalThis)) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart());
          strays.push(`${block.page}:${block.line + line}: \`${node.text}\` is the DOM's; the block never defines it`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  assert.deepEqual(strays, []);
});

/** GitHub's anchor for a heading. */
const slug = (heading) => heading.trim().toLowerCase().replace(/<[^>]+>/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');

test('every relative link of the pages reaches a file, and every anchor a heading', () => {
  const broken = [];
  for (const page of pages) {
    const text = readFileSync(join(root, page), 'utf8').replace(/^( *)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2 *$/gm, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split('#');
      const file = path ? join(dirname(join(root, page)), path) : join(root, page);
      if (!existsSync(file)) {
        broken.push(`${page}: ${target}: no ${relative(root, file)}`);
        continue;
      }
      if (anchor === undefined) continue;
      const headings = readFileSync(file, 'utf8').split('\n').filter((line) => /^#{1,6} /.test(line)).map((line) => slug(line.replace(/^#+ /, '')));
      if (!headings.includes(anchor)) broken.push(`${page}: ${target}: no heading #${anchor} in ${relative(root, file)}`);
    }
  }
  assert.deepEqual(broken, []);
});
