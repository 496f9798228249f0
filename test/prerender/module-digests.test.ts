/**
 * ModuleDigests: the digest of a generated module and of what it imports, over real files.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModuleDigests } from '../../src/prerender/index.js';

describe('ModuleDigests', () => {
  let dir: string;
  const write = async (rel: string, text: string) => {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.writeFile(path.join(dir, rel), text);
  };
  const digest = (rel: string) => new ModuleDigests().of(path.join(dir, rel));

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'module-digests-'));
    await write('runtime.js', 'export const p = (x) => x;\n');
    await write('raw/1.js', 'import { p } from "../runtime.js";\nconst $0 = {"name":"one"};\nexport default $0;\n');
    await write('raw/2.js', 'import { p } from "../runtime.js";\nexport default {"name":"two"};\n');
    await write('raw/3.js', 'export default {"name":"three"};\n');
    await write(
      'stories/1.js',
      '// Generated\nimport { p } from "../runtime.js";\nimport { default as $0 } from "../raw/1.js";\nimport { default as $1 } from "../raw/2.js";\nexport default p($0, $1);\n',
    );
  });

  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('changes with the module and with any module it imports, however deep', async () => {
    const before = digest('stories/1.js');
    expect(before).toMatch(/^[0-9a-f]{64}$/);
    expect(digest('stories/1.js')).toBe(before);
    await write('raw/2.js', 'import { p } from "../runtime.js";\nexport default {"name":"two, edited"};\n');
    const afterRaw = digest('stories/1.js');
    expect(afterRaw).not.toBe(before);
    await write('runtime.js', 'export const p = (x) => ({ ...x });\n');
    expect(digest('stories/1.js')).not.toBe(afterRaw);
  });

  it('does not change with a module it does not import, nor with what follows the imports', async () => {
    const before = digest('stories/1.js');
    await write('raw/3.js', 'export default {"name":"three, edited"};\n');
    expect(digest('stories/1.js')).toBe(before);
    // A line after the first statement that reads like an import is content, not an import.
    await write('raw/3.js', 'export default 1;\nexport { x } from "../raw/2.js";\n');
    const lateImport = digest('raw/3.js');
    await write('raw/2.js', 'export default {"name":"two, edited"};\n');
    expect(digest('raw/3.js')).toBe(lateImport);
  });

  it('leaves out what a module loads on demand (dynamic import)', async () => {
    await write(
      'index.js',
      'export const load = (id) => import(`./stories/${id}.js`);\nexport const one = () => import("./raw/1.js");\n',
    );
    const before = digest('index.js');
    await write('raw/1.js', 'export default {"name":"one, edited"};\n');
    expect(digest('index.js')).toBe(before);
  });

  it('takes in re-exports and side-effect imports, and follows an import cycle once', async () => {
    await write('a.js', 'export { default } from "./b.js";\n');
    await write('b.js', 'import "./a.js";\nimport "./c.js";\nexport default 1;\n');
    await write('c.js', 'export const c = 1;\n');
    const before = digest('a.js');
    await write('c.js', 'export const c = 2;\n');
    const afterC = digest('a.js');
    expect(afterC).not.toBe(before);
    await write('b.js', 'import "./a.js";\nimport "./c.js";\nexport default 2;\n');
    expect(digest('a.js')).not.toBe(afterC);
  });

  it('names the file it cannot read', async () => {
    await write('stories/2.js', 'import { default as $0 } from "../raw/404.js";\nexport default $0;\n');
    expect(() => digest('stories/2.js')).toThrow(/raw[/\\]404\.js/);
  });
});
