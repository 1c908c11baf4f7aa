// The test reporter `npm test` runs Node's test runner with: a line per
// test file (what passed, failed, was skipped or is still to do), each
// failure in full (its test's name, the error and its stack, and what the
// file printed), and a summary. Node's default reporter off a terminal is
// TAP, a screenful per file and a stack for every TODO test, so a run that
// passes printed tens of thousands of lines.
//
// Usage: node --test --test-reporter=./scripts/reporter.mjs files…
import { relative } from 'node:path';
import { inspect } from 'node:util';

const cwd = process.cwd();

function fileOf(data) {
  return data.file === undefined ? '(no file)' : relative(cwd, data.file);
}

function entryFor(files, name) {
  let entry = files.get(name);
  if (entry === undefined) {
    entry = { pass: 0, fail: 0, skip: 0, todo: 0, failures: [], output: [], duration: 0 };
    files.set(name, entry);
  }
  return entry;
}

/** The error a failed test reports, as a person reads it. */
function describeError(error) {
  // Node wraps a test's own error in an ERR_TEST_FAILURE whose cause it is.
  const inner = error?.code === 'ERR_TEST_FAILURE' && error.cause !== undefined ? error.cause : error;
  if (inner instanceof Error) return inner.stack ?? String(inner);
  return inspect(inner, { depth: 6 });
}

/** Whether a test event is a suite or a file's wrapper, not a test. */
const isGroup = (data) => data.details?.type === 'suite' || (data.nesting === 0 && data.file !== undefined && data.name === data.file);

export default async function* reporter(source) {
  const files = new Map();
  const order = [];
  let finished = 0;
  for await (const { type, data } of source) {
    if (type === 'test:stdout' || type === 'test:stderr') {
      const printedBy = fileOf(data);
      const entry = entryFor(files, printedBy.endsWith('.test.mjs') || order.length === 0 ? printedBy : order[order.length - 1]);
      entry.output.push(data.message);
      continue;
    }
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    // A test defined in a shared module (__test__/support/) is named by
    // that module; it belongs to the test file being reported.
    let name = fileOf(data);
    if (!name.endsWith('.test.mjs') && order.length > 0) name = order[order.length - 1];
    if (!order.includes(name)) order.push(name);
    const entry = entryFor(files, name);
    if (data.nesting === 0) entry.duration += data.details?.duration_ms ?? 0;
    if (type === 'test:fail' && isGroup(data)) {
      // A suite or file that failed on its own (a hook, an error at load):
      // its own error, unless a test inside it already said why.
      const cause = data.details?.error;
      const ownFailure = cause?.failureType !== 'subtestsFailed';
      if (ownFailure) {
        entry.fail += 1;
        entry.failures.push({ name: data.name, error: cause });
      }
    } else if (!isGroup(data)) {
      if (data.todo !== undefined) entry.todo += 1;
      else if (data.skip !== undefined) entry.skip += 1;
      else if (type === 'test:pass') entry.pass += 1;
      else {
        entry.fail += 1;
        entry.failures.push({ name: data.name, error: data.details?.error });
      }
    }
    // A file is done when its last top-level test is; the runner reports
    // files one after another, so a file's line is printed when the next
    // file's first event arrives, or at the end.
    while (finished < order.length - 1) yield fileLine(order[finished], files.get(order[finished++]));
  }
  while (finished < order.length) yield fileLine(order[finished], files.get(order[finished++]));

  let pass = 0;
  let fail = 0;
  let skip = 0;
  let todo = 0;
  const failing = [];
  for (const [name, entry] of files) {
    pass += entry.pass;
    fail += entry.fail;
    skip += entry.skip;
    todo += entry.todo;
    if (entry.fail > 0) failing.push([name, entry]);
  }
  for (const [name, entry] of failing) {
    yield `\n---- ${name}: ${entry.fail} failed\n`;
    for (const failure of entry.failures) yield `\n✖ ${failure.name}\n${indent(describeError(failure.error))}\n`;
    const printed = entry.output.join('');
    if (printed.trim() !== '') yield `\nwhat ${name} printed:\n${indent(printed.trimEnd())}\n`;
  }
  yield `\n${order.filter((name) => name.endsWith('.test.mjs')).length} files: ${pass} passed, ${fail} failed, ${skip} skipped, ${todo} to do\n`;
}

function fileLine(name, entry) {
  const parts = [`${entry.pass} passed`];
  if (entry.fail > 0) parts.push(`${entry.fail} FAILED`);
  if (entry.skip > 0) parts.push(`${entry.skip} skipped`);
  if (entry.todo > 0) parts.push(`${entry.todo} to do`);
  const mark = entry.fail > 0 ? '✖' : '✔';
  return `${mark} ${name}: ${parts.join(', ')} (${(entry.duration / 1000).toFixed(1)} s)\n`;
}

const indent = (text) => text.replace(/^/gm, '    ');
