'use strict';
// `seamguard/mastra`: seamguard inside a Mastra agent's own loop
// (`@mastra/core`), as a processor (guard.cjs).

const { createGuard } = require('./guard.cjs');

exports.createGuard = createGuard;
