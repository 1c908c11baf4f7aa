'use strict';
// The root `seamguard` entry, re-exports only: the native binding generated
// by napi-rs (native.cjs; typings in ../index.d.ts), with `RunCorpus` made
// an ES class (guard/corpus.cjs), `ScaffoldingFilter`, a JavaScript class
// over native stream state (filter/scaffolding-filter.cjs), and the parts
// that are JavaScript by nature: the ledger's counters (guard/ledger.cjs)
// and the walk of a tool's schema for its enum values (guard/enums.cjs).
//
// The exports are listed one by one, so that Node's CommonJS lexer sees
// every name for ESM named imports. They are exactly the names index.d.ts
// declares: the binding's `__scaffoldingFilter` functions, which the class
// is built on, and `__claim`, which the guards check their options with,
// are not among them.

const native = require('./native.cjs');
const { RunCorpus, ProducedCorpus } = require('./guard/corpus.cjs');
const { ScaffoldingFilter, FilterPlan, ScaffoldRegistry } = require('./filter/scaffolding-filter.cjs');
const ledger = require('./guard/ledger.cjs');
const { declaredEnumValuesOf } = require('./guard/enums.cjs');

exports.__napiBindingTarget = native.__napiBindingTarget;
exports.RunCorpus = RunCorpus;
exports.ProducedCorpus = ProducedCorpus;
exports.ScaffoldingFilter = ScaffoldingFilter;
exports.FilterPlan = FilterPlan;
exports.ScaffoldRegistry = ScaffoldRegistry;
exports.AssertionStratum = native.AssertionStratum;
exports.ContextErrorKind = native.ContextErrorKind;
exports.Disposition = native.Disposition;
exports.EMPTY_LOOKUP_CEILING = native.EMPTY_LOOKUP_CEILING;
exports.emptyLookupOf = native.emptyLookupOf;
exports.unsupportedArgumentsOf = native.unsupportedArgumentsOf;
exports.declaredEnumValuesOf = declaredEnumValuesOf;
exports.danglingReferencesOf = native.danglingReferencesOf;
exports.IntegritySeam = native.IntegritySeam;
exports.readLookupResult = native.readLookupResult;
exports.RunRole = native.RunRole;
exports.SCAFFOLD_PATTERNS = native.SCAFFOLD_PATTERNS;
exports.SCAFFOLD_PRESETS = native.SCAFFOLD_PRESETS;
exports.SCAFFOLD_SPECIAL_TOKENS = native.SCAFFOLD_SPECIAL_TOKENS;
exports.OpenSpanPolicy = native.OpenSpanPolicy;
exports.StripReason = native.StripReason;
exports.SkippedToolReason = native.SkippedToolReason;
exports.usableTools = native.usableTools;
exports.argumentsMisfit = native.argumentsMisfit;
exports.answerValuesOf = native.answerValuesOf;
exports.normalizeValue = native.normalizeValue;
exports.dispositionLedger = ledger.dispositionLedger;
exports.CheckerDeadError = ledger.CheckerDeadError;
exports.contextErrorIdentity = ledger.contextErrorIdentity;
exports.dedupeContextErrors = ledger.dedupeContextErrors;
exports.beginIntegrityRun = ledger.beginIntegrityRun;
