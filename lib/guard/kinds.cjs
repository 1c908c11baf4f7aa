'use strict';
// The kinds of message most frameworks have, for an adapter's `kindOf`: an
// assistant message that calls tools is its own kind (named by its first
// call's id), and so is the tool message that answers it (named by the id
// of the call it answers), so the two names never meet. The guard reads
// kinds as opaque numbers, but for one thing: a prompt holding an assistant
// kind has a history, which the run finder (runs.cjs) takes into account.
// An adapter may add kinds of its own past these.

const MESSAGE_KINDS = Object.freeze({ SYSTEM: 0, USER: 1, ASSISTANT: 2, CALLS: 3, RESULTS: 4 });

/** The kinds a model's own answers are read as. */
const MESSAGE_KINDS_WITH_ANSWERS = new Set([MESSAGE_KINDS.ASSISTANT, MESSAGE_KINDS.CALLS]);

exports.MESSAGE_KINDS = MESSAGE_KINDS;
exports.MESSAGE_KINDS_WITH_ANSWERS = MESSAGE_KINDS_WITH_ANSWERS;
