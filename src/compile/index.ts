export { CompileCache, compile, type CompileOptions, type CompileResult } from './compile.js';
export { MODULE_FORMS, servedFile } from './modules.js';
export { devModuleSource } from './dev-forms.js';
