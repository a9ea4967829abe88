export { ActionIndex, tokenize, type ActionMatch } from './action-search.js';
export { actionHints, actionToolName, actionTools, checkSelection, selects, type ActionSelection, type ActionToolSpec, type ToolHints } from './tools.js';
