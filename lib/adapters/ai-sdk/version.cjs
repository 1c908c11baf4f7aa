'use strict';
// The middleware specification version the installed `ai` speaks: 'v4'
// under ai 7, 'v3' under ai 6. `ai` is found as this package finds its
// peers, from here, so it is the one the user's project installed (npm
// hoists it beside seamguard; pnpm links it into seamguard's own
// node_modules). ai 7 accepts a 'v3' middleware too, but its type says
// 'v4', and a middleware should say the version of the models it wraps.

/** The major version of the `ai` this package resolves, or undefined when there is none. */
function installedAiMajor() {
  try {
    const { version } = require('ai/package.json');
    const major = Number.parseInt(String(version), 10);
    return Number.isInteger(major) ? major : undefined;
  } catch {
    // No `ai` beside seamguard: the middleware is only a plain object then.
    return undefined;
  }
}

/** The `specificationVersion` of the middlewares this package builds. */
function specificationVersion() {
  return installedAiMajor() === 7 ? 'v4' : 'v3';
}

exports.installedAiMajor = installedAiMajor;
exports.specificationVersion = specificationVersion;
