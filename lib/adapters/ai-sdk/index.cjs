'use strict';
// `seamguard/ai-sdk`: seamguard inside the AI SDK's own loop, as
// language-model middlewares for `wrapLanguageModel` (AI SDK 6 and 7).
// - createGuard: the three checks, armed by one `argumentsFrom` declaration
//   per tool (guard.cjs);
// - scaffoldingMiddleware: the stream seam's filter (scaffolding.cjs).

const { createGuard } = require('./guard.cjs');
const { scaffoldingMiddleware } = require('./scaffolding.cjs');

exports.createGuard = createGuard;
exports.scaffoldingMiddleware = scaffoldingMiddleware;
