'use strict';
// RunCorpus, the run corpus the root entry exports (also as
// ProducedCorpus): the generated class, made an ES class.

const native = require('../native.cjs');

/**
 * The generated class as an ES class, so that calling it without `new` is a
 * TypeError (the generated constructor alone would return undefined); its
 * instances are instances of the generated class.
 */
class RunCorpus extends native.RunCorpus {}

exports.RunCorpus = RunCorpus;
