export { CompileCache, compile, type CompileOptions, type CompileResult } from './compile.js';
export { moduleSource } from './serialize.js';
export type { EntryMeta } from './emit.js';
