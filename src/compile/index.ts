export { CompileCache, compile, type CompileOptions, type CompileResult } from './compile.js';
export { moduleSource } from './serialize.js';
export type { EntryMeta } from './emit.js';
export { MODULE_FORMS, NAMED_MODULES, servedFile, servedModules, viewModuleName } from './modules.js';
