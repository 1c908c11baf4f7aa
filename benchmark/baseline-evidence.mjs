// The claim seam's evidence gate written in plain JavaScript from its rules
// (docs/checks.md, "The claim seam"), the way agentfootprint's gate runs at
// each judgement: walk the history's tool results as they stand, build the
// index of their normalized spellings (a JSON result walked: keys, string
// leaves whole and token by token, numbers as String(n), booleans; any
// other result token by token), read the answer's values, and look each one
// up. Nothing is kept between judgements. It is the baseline the benchmark
// measures RunCorpus.evidenceOf against; its prose is its own.

const TOKEN_SEPARATORS = /[^A-Za-z0-9:_\-/.,%+@#$]+/g;
const LEADING = /^[$#@+'"`([{<]+/;
const TRAILING = /[.,;:!?%'"`)\]}>]+$/;
const THOUSANDS = /^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
const PLAIN = /^[-+]?\d+(?:\.\d+)?$/;
const TAILED = /^([-+]?\d+(?:\.\d+)?)[-/]?[a-z]{1,5}(?:\/[a-z]{1,5})?$/;
const RATIO = /^\d{1,2}\/\d{1,2}$/;

const digitCount = (text) => text.replace(/[^0-9]/g, '').length;

/** One spelling per value, on both sides. */
export function normalize(raw) {
  let text = raw.toLowerCase().trim().replace(LEADING, '').replace(TRAILING, '');
  if (THOUSANDS.test(text)) text = text.replaceAll(',', '');
  if (PLAIN.test(text) && digitCount(text) <= 15) text = String(Number(text));
  return text;
}

/** The normalized tokens of free text, in order. */
export function tokensOf(text) {
  const out = [];
  for (const run of text.replace(TOKEN_SEPARATORS, ' ').split(' ')) {
    if (run === '') continue;
    let start = 0;
    for (let i = 0; i <= run.length; i++) {
      const listComma = i < run.length && run[i] === ',' && !(/\d/.test(run[i - 1] ?? '') && /\d/.test(run[i + 1] ?? ''));
      if (i === run.length || listComma) {
        const token = normalize(run.slice(start, i));
        if (token !== '') out.push(token);
        start = i + 1;
      }
    }
  }
  return out;
}

const bareForms = (value) => (value.startsWith('0x') && value.length > 2 ? [value, value.slice(2)] : [value]);

/** The values an answer asserts, with the spellings each is looked up under. */
export function valuesOf(answer, minDigits = 4) {
  const seen = new Set();
  const out = [];
  for (const token of tokensOf(answer)) {
    if (digitCount(token) === 0 || RATIO.test(token)) continue;
    const tailed = TAILED.exec(token);
    const number = tailed ? normalize(tailed[1]) : PLAIN.test(token) ? token : undefined;
    let found;
    if (number !== undefined) {
      if (digitCount(number) < minDigits) continue;
      found = { value: number, shape: 'number', forms: tailed && token !== number ? [...bareForms(number), ...bareForms(token)] : bareForms(number) };
    } else if (token.length >= 4 && /[a-z:_\-/.]/.test(token)) {
      found = { value: token, shape: 'identifier', forms: bareForms(token) };
    }
    if (found === undefined || seen.has(found.value)) continue;
    seen.add(found.value);
    out.push(found);
  }
  return out;
}

/** Adds a text's spellings to `index`: the whole text and each token. */
function indexText(index, text) {
  for (const form of bareForms(normalize(text))) index.add(form);
  for (const token of tokensOf(text)) for (const form of bareForms(token)) index.add(form);
}

function indexJson(index, node) {
  if (typeof node === 'string') indexText(index, node);
  else if (typeof node === 'number' || typeof node === 'boolean') indexText(index, String(node));
  else if (Array.isArray(node)) for (const item of node) indexJson(index, item);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      indexText(index, key);
      indexJson(index, value);
    }
  }
}

/**
 * One judgement: `history` is the run's messages as they stand
 * (`{ role, content }`), `answer` the final answer. The values no tool
 * result and no user or system text carries are unsupported.
 */
export function evidenceOf(history, answer) {
  const evidence = new Set();
  const exempt = new Set();
  for (const message of history) {
    if (message.role === 'tool') {
      let parsed;
      try {
        parsed = JSON.parse(message.content);
      } catch {
        parsed = undefined;
      }
      if (parsed === undefined || typeof parsed !== 'object' || parsed === null) indexText(evidence, message.content);
      else indexJson(evidence, parsed);
    } else if (message.role === 'user' || message.role === 'system') {
      for (const token of tokensOf(message.content)) exempt.add(token);
    }
  }
  const values = valuesOf(answer).filter((v) => !exempt.has(v.value));
  const unsupported = values.filter((v) => !v.forms.some((form) => evidence.has(form))).map(({ value, shape }) => ({ value, shape }));
  return { unsupported, candidates: values.length };
}
