/** Filter search building blocks, shared by filter mode (src/context/search.ts) and semantic mode (src/context/semantic). */
export { compileFilter, compileFilterInto, OPERATORS } from './compile.js';
export { isSearchablePath, parsePath } from './fields.js';
export { projectFields } from './project.js';
export { compileSearchFilter, notingWords, withTypos, type ExactFilter } from './search-filter.js';
export { parseSort, sortPlan, type SortField, type SortPlan } from './sort.js';
