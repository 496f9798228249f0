/**
 * Vite's scan for dependencies to pre-bundle, which follows a page's `content:` imports: alone
 * (`vite optimize`) it ends with no hook of the plugin's called after it.
 */
import { execFile } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeEnv } from '../frameworks/fixture-app.js';
import { clearContentEnv, project, removeDir } from './support.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const VITE = path.join(REPO, 'node_modules', 'vite', 'bin', 'vite.js');

describe('vite optimize with the embedded option', () => {
  let root: string | undefined;
  afterEach(() => removeDir(root));

  it('ends, starting no service for the scan', async () => {
    clearContentEnv();
    root = await project("import { entries } from 'content:index';\nconsole.log(entries.length);\n");
    const plugin = JSON.stringify(path.join(REPO, 'src', 'index.ts'));
    await fs.writeFile(
      path.join(root, 'vite.config.mts'),
      `import { contentSync } from ${plugin};\n` +
        `export default { plugins: [contentSync({ embedded: { data: 'space', demo: { stories: 12 } } })] };\n`,
    );
    // A process the service kept alive is killed at the timeout: the command fails then.
    const { stderr } = await promisify(execFile)(process.execPath, [VITE, 'optimize', '--force'], {
      cwd: root,
      env: nodeEnv(process.execPath),
      timeout: 30_000,
      killSignal: 'SIGKILL',
    });
    expect(stderr).not.toContain('content-sync');
    expect(existsSync(path.join(root, '.content', 'service.json'))).toBe(false);
  }, 60_000);
});
