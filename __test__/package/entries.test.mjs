// Every entry of the exports map loads both ways, each in its own process,
// by package name as a consumer would.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { it } from 'node:test';

import { root } from '../support/helpers.mjs';

const ENTRIES = {
  seamguard: ['ScaffoldingFilter', 'SCAFFOLD_PATTERNS', 'usableTools', 'emptyLookupOf', 'readLookupResult', 'EMPTY_LOOKUP_CEILING'],
  'seamguard/streams': ['scaffoldingTransform', 'stripScaffolding'],
  'seamguard/ai-sdk': ['scaffoldingMiddleware'],
};

function run(inputType, source) {
  const child = spawnSync(process.execPath, [`--input-type=${inputType}`, '-e', source], { cwd: root, encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

const kinds = (names) => `Object.fromEntries(${JSON.stringify(names)}.map((n) => [n, typeof m[n]]))`;

for (const [entry, names] of Object.entries(ENTRIES)) {
  it(`${entry} loads with import and with require`, () => {
    const quoted = JSON.stringify(entry);
    const esm = run(
      'module',
      `import * as m from ${quoted};
       import { ${names.join(', ')} } from ${quoted};
       import { createRequire } from 'node:module';
       const required = createRequire(import.meta.url)(${quoted});
       const same = [${names.join(', ')}].every((value, i) => value === required[${JSON.stringify(names)}[i]]);
       console.log(JSON.stringify({ kinds: ${kinds(names)}, same }));`,
    );
    const cjs = run('commonjs', `const m = require(${quoted}); console.log(JSON.stringify({ kinds: ${kinds(names)} }));`);
    assert.deepEqual(esm.kinds, cjs.kinds);
    for (const name of names) assert.notEqual(cjs.kinds[name], 'undefined', `${entry} exports ${name}`);
    assert.ok(esm.same, 'named imports are the very values require returns');
  });
}
