'use strict';
// The native binding: the one module of lib/ that requires ../index.js,
// the loader napi-rs generates. The loader finds the binary for this
// platform, next to it (a build from source) or in the platform package
// `seamguard-<platform>`, which the package manager installs as an
// optional dependency.
//
// When no binary loads, the loader's own error blames an npm bug and says
// to delete package-lock.json and node_modules, which is the wrong advice
// here. This module throws in its place an error that says what is wrong
// (load-error.cjs: Deno's permission, a platform package not installed, a
// platform with no prebuilt binary), with what each attempt hit (the
// loader's error's own `cause`) as its `cause`, so that the wrong advice is
// not printed under it either. Kept here rather than patched into the
// generated loader, the message needs no step after `napi build`.

/** The loader's exports; its load error, made clear. */
function load() {
  try {
    return require('../index.js');
  } catch (error) {
    throw loadError(error);
  }
}

/**
 * The error for a binding that did not load, given the loader's. Its cause
 * is the loader's own cause, what each attempt hit; an error with no cause
 * (the loader tried nothing, or failed some other way) is the cause whole.
 */
function loadError(error) {
  const { loadErrorMessage, loadFacts } = require('./load-error.cjs');
  return new Error(loadErrorMessage(loadFacts(error)), { cause: error?.cause ?? error });
}

module.exports = load();
