// Heal field cases for the guards that carry the stream seam (the OpenAI
// Agents SDK's and Mastra's): real leaked calls, one per markup family,
// the tools they call (with `execute` functions that record every run), and
// the script a fake model plays: the leak, then, once the tool's result is
// in its prompt, the final answer.
//
// Each leak is a case of `__test__/fixtures/real-leaks.json`, read by id,
// so its text and its source (the public report it was taken from) live in
// one place.
import { readFileSync } from 'node:fs';

const FIXTURE = JSON.parse(readFileSync(new URL('../fixtures/real-leaks.json', import.meta.url), 'utf8'));

/** The fixture case `id`: its leaked text, what a reader sees of it, and its source. */
function leakOf(id) {
  const found = FIXTURE.cases.find((entry) => entry.id === id);
  if (found === undefined) throw new Error(`heal-cases: real-leaks.json has no case ${id}`);
  return { leaked: found.leaked, clean: found.clean, source: found.source };
}

/**
 * The leaks a model writes as text instead of calling, one per family, and
 * the calls each heals into, in order. Every one names a tool below with
 * arguments its schema admits.
 */
export const LEAKS = [
  { id: 'hermes-qwen3-next-mlx', format: 'Hermes <tool_call> JSON', calls: [{ toolName: 'get_weather', input: { city: 'Tokyo' } }] },
  { id: 'qwen3coder-ollama-exec-command', format: 'Qwen3-Coder <function=…><parameter=…>', calls: [{ toolName: 'exec_command', input: { cmd: 'echo LEAK_TEST' } }] },
  { id: 'kimi-vllm-inner-call-no-section', format: 'Kimi K2 special tokens', calls: [{ toolName: 'get_weather', input: { city: 'Tokyo' } }] },
  { id: 'mistral-devstral-rapidmlx-args', format: 'Mistral [TOOL_CALLS]…[ARGS]', calls: [{ toolName: 'web_search', input: { query: 'latest AI model releases this month' } }] },
  { id: 'dsml-sglang-v4-tool-choice-none', format: 'DeepSeek V4 DSML tokens', calls: [{ toolName: 'Bash', input: { command: 'pwd' } }] },
  {
    id: 'glm-lmstudio-parallel-calls',
    format: 'GLM <arg_key>/<arg_value>, two calls',
    calls: [
      { toolName: 'get_file_info', input: { path: 'file1.jpg' } },
      { toolName: 'get_file_info', input: { path: 'file2.jpg' } },
    ],
  },
].map((leak) => ({ ...leak, ...leakOf(leak.id) }));

/** What the model says before its leaked call, and what the user sees of it. */
export const PROSE = 'Let me check that.\n';
/** The model's next turn, once the tool's result is in its prompt. */
export const FINAL = 'Done: the tool answered.';

/** A call to a tool nobody offers, in unmistakable call markup. */
export const INVENTED = '<tool_call>\n{"name": "delete_records", "arguments": {"table": "users"}}\n</tool_call>';
/** A call to an offered tool whose arguments its schema refuses (`city` is required, nothing else allowed). */
export const MISFIT = '<tool_call>\n{"name": "get_weather", "arguments": {"town": 7}}\n</tool_call>';

const strings = (...names) => Object.fromEntries(names.map((name) => [name, { type: 'string' }]));

/**
 * The tools on offer, for any framework: `{ name, description, properties,
 * execute }` (every property a required string, no others), each run
 * recorded in `runs` as `{ toolName, input }`.
 */
export function healTools(runs) {
  const tool = (name, description, properties, answer) => ({
    name,
    description,
    properties,
    execute: async (input) => {
      runs.push({ toolName: name, input: { ...input } });
      return answer(input);
    },
  });
  return [
    tool('get_weather', 'The forecast for a city', strings('city'), ({ city }) => ({ city, forecast: `sunny in ${city}` })),
    tool('exec_command', 'Runs a shell command', strings('cmd'), () => 'LEAK_TEST'),
    tool('web_search', 'Searches the web', strings('query'), () => [{ title: 'A release', url: 'https://example.com/release' }]),
    tool('Bash', 'Runs a shell command', strings('command'), () => '/home/user'),
    tool('get_file_info', 'Tells a file\'s size', strings('path'), ({ path }) => ({ path, bytes: 2048 })),
    tool('note', 'Writes a note', strings('text'), () => 'noted'),
  ];
}

/** The script of a healed leak: the leak after some prose, then the final answer. */
export const healScript = (leaked) => [{ text: PROSE + leaked }, { text: FINAL }];

/**
 * For several conversations at once on one agent: each one's city, its
 * prompt, and the router a fake model answers with: a leaked call for the
 * city its prompt asks about, and, once a result is in the prompt, an
 * answer naming the city the result was for (so a result that reached the
 * wrong conversation shows in its answer).
 */
export const CITIES = ['Tokyo', 'Paris', 'Lagos', 'Lima', 'Oslo', 'Quito'];
export const cityPrompt = (city) => `What is the weather in ${city}?`;

export function cityRouter() {
  return {
    /** `prompt` is the model's prompt as JSON text; answers `{ text }`. */
    answer(prompt) {
      const city = CITIES.find((name) => prompt.includes(cityPrompt(name)));
      if (city === undefined) return { text: 'Which city?' };
      // A result is in the prompt: answer with the city it was for.
      const result = /sunny in ([A-Za-z]+)/.exec(prompt);
      if (result !== null) return { text: `Sunny in ${result[1]}.` };
      return { text: `Checking ${city}.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "${city}"}}\n</tool_call>` };
    },
  };
}
