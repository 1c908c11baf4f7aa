import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const addon = require('seamguard');
import { producedRun } from './workloads.mjs';
const RUN = producedRun(40, 100 * 1024, 400);
for (let k = 0; k < 100; k++) { const corpus = new addon.ProducedCorpus(); RUN.forEach(({ toolName, text }) => corpus.push({ toolName, text })); corpus.clear(); }
