'use strict';
// `seamguard/langchain`: seamguard inside a LangChain.js agent's own loop
// (`createAgent`, langchain 1), as agent middleware (guard.cjs).

const { createGuard } = require('./guard.cjs');

exports.createGuard = createGuard;
