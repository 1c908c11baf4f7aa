'use strict';
// RunCorpus, the run corpus the root entry exports, and ProducedCorpus:
// the generated class, made an ES class.

const native = require('../native.cjs');

/**
 * The generated class as an ES class, so that calling it without `new` is a
 * TypeError (the generated constructor alone would return undefined); its
 * instances are instances of the generated class.
 */
class RunCorpus extends native.RunCorpus {}

/**
 * A corpus of one run's tool results for empty-lookup: a RunCorpus that,
 * unless told otherwise, keeps no claim index (its answers are never
 * judged, and indexing every result's values would be most of a push).
 */
class ProducedCorpus extends RunCorpus {
  constructor(options) {
    super(options === undefined ? { evidence: false } : options);
  }
}

exports.RunCorpus = RunCorpus;
exports.ProducedCorpus = ProducedCorpus;
