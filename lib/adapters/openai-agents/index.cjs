'use strict';
// `seamguard/openai-agents`: seamguard inside the OpenAI Agents SDK's own
// loop (`@openai/agents`), as a wrapper of the agent's `Model`
// (guard.cjs).

const { createGuard } = require('./guard.cjs');

exports.createGuard = createGuard;
