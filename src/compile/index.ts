export { CompileCache, compile, type CompileOptions, type CompileResult } from './compile.js';
export { entryFieldsProblem } from './emit.js';
export { schemaProblem } from './types/index.js';
export { MODULE_FORMS, servedFile } from './modules.js';
export { chunksOfView, isViewModule } from './views.js';
export {
  devBrowserIndex,
  devDataChunk,
  devStoriesIndex,
  devStoryLoaders,
  devViewChunk,
  isDataChunk,
  isEntriesChunk,
  isViewChunk,
  STORY_LOADERS,
} from './dev-forms.js';
