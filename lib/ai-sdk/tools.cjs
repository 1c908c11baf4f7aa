'use strict';
// The tools an AI SDK call offers the model, read once for both the guard
// and the scaffolding middleware.

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
 * The offered tools as `ScaffoldingFilter`'s `tools` option: each name,
 * with its parameter names when its input schema lists `properties`.
 */
function filterTools(offered) {
  const seen = new Set();
  const tools = [];
  for (const { name, inputSchema } of offered) {
    if (name === '' || seen.has(name)) continue;
    seen.add(name);
    const properties = inputSchema?.properties;
    const parameters =
      properties !== null && typeof properties === 'object' && !Array.isArray(properties)
        ? Object.keys(properties).filter((key) => key !== '')
        : undefined;
    tools.push(parameters === undefined || parameters.length === 0 ? { name } : { name, parameters });
  }
  return tools;
}

exports.functionTools = functionTools;
exports.offeredTools = offeredTools;
exports.filterTools = filterTools;
