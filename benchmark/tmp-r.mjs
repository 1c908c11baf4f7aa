import { guardRunWorkload, guardRun, seamguardGuard, javascriptGuard } from './guard-run.mjs';
const w = guardRunWorkload();
// record params + results
const recorded = [];
const rec = () => ({ middleware: { specificationVersion: 'v3', async wrapGenerate({ doGenerate, params }) { const r = await doGenerate(); recorded.push({ params, result: r }); return r; } }, findings: [] });
await guardRun(w, rec);
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const probe = () => { let x = 0; return { middleware: { async wrapGenerate({ doGenerate }) { const s = 'abc'.repeat(3000); for (let i = 0; i < s.length; i += 7) x += s.charCodeAt(i); return doGenerate(); } }, findings: [] }; };
for (let round = 0; round < 3; round++) {
  for (const [name, make] of [['seamguard', seamguardGuard], ['js', javascriptGuard], ['probe', probe]]) {
    const g = make();
    const times = [];
    for (const { params, result } of recorded) {
      const t = performance.now();
      let inner = 0;
      await g.middleware.wrapGenerate({ params, doGenerate: async () => { return result; } });
      times.push(performance.now() - t);
    }
    const sdk = await guardRun(w, make);
    console.log(name, 'replay at30', med(times.slice(20, 41)).toFixed(4), 'at300', med(times.slice(280, 301)).toFixed(4), '| sdk at30', med(sdk.guardMs.slice(20, 41)).toFixed(4), 'at300', med(sdk.guardMs.slice(280, 301)).toFixed(4));
  }
}
