'use strict';
// The tools a model call offers, read once for every user of them: the
// function tools of an AI SDK call (read by the AI SDK's guard and its
// scaffolding middleware, and by Mastra's guard, whose models are AI SDK
// models), and the offered tools as ScaffoldingFilter's `tools` option,
// which the guard's core builds for every framework.

const { SkippedToolReason, usableTools } = require('../native.cjs');

/**
 * The function tools in `params.tools`, whatever the tool choice: the
 * tools the model was told about. Provider-defined tools run on the
 * provider's side and are never the model's text to leak.
 * @returns {{ name: string, inputSchema: unknown }[]}
 */
function functionTools(params) {
  const tools = [];
  for (const tool of params?.tools ?? []) {
    if (tool?.type !== 'function' || typeof tool.name !== 'string') continue;
    tools.push({ name: tool.name, inputSchema: tool.inputSchema });
  }
  return tools;
}

/**
 * The function tools the model may call in this call: all of them, less
 * all under `toolChoice: 'none'` and all but one under
 * `toolChoice: { type: 'tool' }`.
 */
function offeredTools(params) {
  const choice = params?.toolChoice;
  if (choice?.type === 'none') return [];
  const tools = functionTools(params);
  return choice?.type === 'tool' ? tools.filter((tool) => tool.name === choice.toolName) : tools;
}

/**
 * The offered tools as `ScaffoldingFilter`'s `tools` option, `{ tools,
 * skipped }`: each name, with its parameter names when its input schema
 * lists `properties`, less what tool-aware detection cannot use. Which
 * names it can use is decided once, in Rust (`usableTools`): `skipped`
 * says which tools were left out, and why.
 */
function filterTools(offered) {
  const tools = offered.map(({ name, inputSchema }) => {
    const properties = inputSchema?.properties;
    const parameters = properties !== null && typeof properties === 'object' && !Array.isArray(properties) ? Object.keys(properties) : undefined;
    return parameters === undefined || parameters.length === 0 ? name : { name, parameters };
  });
  return usableTools(tools);
}

/**
 * Says, once per tool name for `said` (a Set the caller keeps), that the
 * tools `skipped` names are left out of tool-aware detection: `say(error)`
 * is called with one TypeError for the names not said before, or not at
 * all. A tool kept without an empty parameter name is not worth a word.
 */
function sayLeftOut(skipped, said, say) {
  const fresh = skipped.filter((tool) => tool.reason !== SkippedToolReason.EmptyParameter && !said.has(tool.name));
  if (fresh.length === 0) return;
  for (const tool of fresh) said.add(tool.name);
  const cut = (name) => JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
  const list = fresh.map((tool) => `${cut(tool.name)} (${tool.reason})`).join(', ');
  say(new TypeError(`${fresh.length === 1 ? 'a tool the model is offered is' : `${fresh.length} tools the model is offered are`} left out of tool-aware detection, which cannot use ${fresh.length === 1 ? 'its name' : 'their names'}: ${list}. A leak of ${fresh.length === 1 ? 'it' : 'them'} is stripped only where the special tokens or presets catch it.`));
}

exports.functionTools = functionTools;
exports.offeredTools = offeredTools;
exports.filterTools = filterTools;
exports.sayLeftOut = sayLeftOut;
