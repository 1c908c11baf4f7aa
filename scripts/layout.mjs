// The layout gate, run by lint.mjs: the tree keeps the shape
// docs/development.md describes.
//
// - No source file of the crate is over 1,200 lines (tests excluded: a
//   module's `tests.rs`, a `#[cfg(test)] mod` file, `tests/`). A longer file
//   holds more than one concept; split it.
// - No import circle among the crate's modules, nor among the package's
//   JavaScript files (lib/ and the loader index.js): no two files import
//   each other, directly or around a circle. A module that needs a type its
//   importer defines wants that type moved below both.
//
// Both graphs are read from the text, as a reader would: Rust `use`
// declarations and `crate::`/`super::`/`self::` paths in code (comments and
// test modules left out), each resolved to the deepest module file it
// names; JavaScript `require('./…')` calls. `node scripts/layout.mjs
// --graph` prints the edges.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MAX_LINES = 1200;

function walk(dir, keep) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path, keep));
    else if (keep(path)) out.push(path);
  }
  return out;
}

/** The text without comments, string literals kept as empty strings. */
function code(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\/\/[^\n]*/g, '');
}

/** Cuts each inline `#[cfg(test)] mod name { … }` out of the code. */
function withoutTestModules(text) {
  let out = text;
  for (;;) {
    const found = /#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{/.exec(out);
    if (found === null) return out;
    let depth = 0;
    let end = found.index + found[0].length - 1;
    for (; end < out.length; end++) {
      if (out[end] === '{') depth++;
      else if (out[end] === '}' && --depth === 0) break;
    }
    out = out.slice(0, found.index) + out.slice(end + 1);
  }
}

/** `a::{b, c::{d, e}}` as its paths: `a::b`, `a::c::d`, `a::c::e`. */
function expand(tree) {
  const text = tree.replace(/\s+as\s+\w+/g, '').replace(/\s+/g, '');
  const open = text.indexOf('{');
  if (open === -1) return [text.replace(/::self$/, '')];
  const prefix = text.slice(0, open);
  const inner = text.slice(open + 1, text.lastIndexOf('}'));
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= inner.length; i++) {
    const unit = inner[i];
    if (unit === '{') depth++;
    else if (unit === '}') depth--;
    else if ((unit === ',' || i === inner.length) && depth === 0) {
      if (i > start) parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  return parts.flatMap((part) => expand(prefix + part));
}

function rustGraph() {
  const src = join(root, 'src');
  const files = walk(src, (path) => path.endsWith('.rs'));
  // Module path of each file: src/lib.rs is `crate`, a/mod.rs is `crate::a`.
  const moduleOf = new Map();
  for (const file of files) {
    const parts = relative(src, file).replace(/\.rs$/, '').split('/');
    if (parts.at(-1) === 'mod' || parts.at(-1) === 'lib') parts.pop();
    moduleOf.set(file, ['crate', ...parts].join('::'));
  }
  const fileOf = new Map([...moduleOf].map(([file, module]) => [module, file]));
  // Files that only tests compile: `#[cfg(test)] mod name;` and `tests.rs`.
  const testOnly = new Set(files.filter((file) => file.endsWith('/tests.rs')));
  for (const file of files) {
    const text = code(readFileSync(file, 'utf8'));
    for (const [, name] of text.matchAll(/#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;/g)) {
      const child = fileOf.get(`${moduleOf.get(file)}::${name}`);
      if (child !== undefined) testOnly.add(child);
    }
  }
  const edges = new Map();
  for (const file of files) {
    if (testOnly.has(file)) continue;
    const self = moduleOf.get(file).split('::');
    const text = withoutTestModules(code(readFileSync(file, 'utf8')));
    const children = new Set([...text.matchAll(/\bmod\s+(\w+)\s*;/g)].map((m) => m[1]));
    const paths = [];
    for (const [, tree] of text.matchAll(/\buse\s+([^;]+);/g)) paths.push(...expand(tree));
    for (const [path] of text.matchAll(/\b(?:crate|super|self)(?:::\w+)+/g)) paths.push(path);
    const targets = new Set();
    for (const path of paths) {
      let segments = path.split('::').filter((segment) => segment !== '');
      if (segments[0] === 'crate') segments = ['crate', ...segments.slice(1)];
      else if (segments[0] === 'self' || segments[0] === 'super') {
        let base = self;
        while (segments[0] === 'self' || segments[0] === 'super') {
          if (segments.shift() === 'super') base = base.slice(0, -1);
        }
        segments = [...base, ...segments];
      } else if (children.has(segments[0])) segments = [...self, ...segments];
      else continue;
      for (let length = segments.length; length > 0; length--) {
        const target = fileOf.get(segments.slice(0, length).join('::'));
        if (target !== undefined) {
          if (target !== file && !testOnly.has(target)) targets.add(target);
          break;
        }
      }
    }
    edges.set(file, targets);
  }
  return { files: files.filter((file) => !testOnly.has(file)), edges };
}

function javascriptGraph() {
  const files = [join(root, 'index.js'), ...walk(join(root, 'lib'), (path) => /\.c?js$/.test(path))];
  const edges = new Map();
  for (const file of files) {
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/^\s*\/\/[^\n]*/gm, '');
    const targets = new Set();
    for (const [, request] of text.matchAll(/require\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) {
      const base = resolve(dirname(file), request);
      const target = [base, `${base}.cjs`, `${base}.js`, join(base, 'index.cjs')].find((path) => files.includes(path));
      if (target !== undefined && target !== file) targets.add(target);
    }
    edges.set(file, targets);
  }
  return { files, edges };
}

/** The strongly connected components of more than one file (Tarjan). */
function circles({ files, edges }) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (file) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file), low.get(target)));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file), index.get(target)));
    }
    if (low.get(file) === index.get(file)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

const name = (file) => relative(root, file);
const problems = [];
const rust = rustGraph();
for (const file of rust.files) {
  const lines = readFileSync(file, 'utf8').split('\n').length - 1;
  if (lines > MAX_LINES) problems.push(`${name(file)}: ${lines} lines, more than ${MAX_LINES}`);
}
const javascript = javascriptGraph();
for (const graph of [rust, javascript]) {
  for (const circle of circles(graph)) {
    const ties = circle.flatMap((file) =>
      [...graph.edges.get(file)].filter((target) => circle.includes(target)).map((target) => `${name(file)} -> ${name(target)}`));
    problems.push(`an import circle of ${circle.length} files: ${ties.join(', ')}`);
  }
}
if (process.argv.includes('--graph')) {
  for (const graph of [rust, javascript]) {
    for (const [file, targets] of graph.edges) for (const target of targets) console.log(`${name(file)} -> ${name(target)}`);
  }
}
if (problems.length > 0) {
  console.error(`The layout gate failed:\n${problems.map((problem) => `- ${problem}`).join('\n')}`);
  process.exit(1);
}
console.log(`layout: ${rust.files.length} Rust modules and ${javascript.files.length} JavaScript files, none over ${MAX_LINES} lines, no import circle`);
