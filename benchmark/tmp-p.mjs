import { guardRunWorkload, guardRun, seamguardGuard } from './guard-run.mjs';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const { Guard } = require('../lib/guard/core.cjs');
const parts = {};
for (const name of ['sync', 'pushMessage', 'judgeCompose', 'answered', 'judgeWrite']) {
  const orig = Guard.prototype[name];
  parts[name] = [];
  Guard.prototype[name] = function (...args) { const t = performance.now(); try { return orig.apply(this, args); } finally { parts[name].push([this.epoch, performance.now() - t]); } };
}
const w = guardRunWorkload();
for (let round = 0; round < 3; round++) {
  for (const k in parts) parts[k].length = 0;
  await guardRun(w, seamguardGuard);
  const med = (a) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[s.length >> 1] : 0; };
  const at = (k, lo, hi) => med(parts[k].filter(([e]) => e >= lo && e <= hi).map(([, t]) => t)).toFixed(4);
  console.log(Object.keys(parts).map(k => `${k} ${at(k, 20, 40)} → ${at(k, 280, 300)}`).join(' | '));
}
