export { CompileCache, compile, type CompileOptions, type CompileResult } from './compile.js';
export { entryFieldsProblem } from './emit.js';
export { MODULE_FORMS, servedFile } from './modules.js';
export { devDataChunk, devStoriesIndex, isDataChunk } from './dev-forms.js';
