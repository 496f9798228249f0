import { resolveConfig } from 'vite';
import { describe, expect, it } from 'vitest';
import { contentSync } from '../../src/index.js';
import { OptionsError, parseOptions } from '../../src/vite/index.js';
import { capturingLogger } from './support.js';

describe('plugin options', () => {
  it('accepts no options and fills the defaults', () => {
    const o = parseOptions(undefined);
    expect(o).toMatchObject({
      api: 'v2',
      version: 'published',
      depth: 1,
      dir: '.content',
      offline: 'auto',
      detectRelations: false,
    });
    expect(o.webhook).toEqual({ path: '/__content-sync/webhook', maxBytes: 64 * 1024, coalesceMs: 0, maxWaitMs: 2000 });
  });

  it.each([
    [{ resolveLinks: 'nope' }, 'resolveLinks'],
    [{ depth: -1 }, 'depth'],
    [{ depth: 1.5 }, 'depth'],
    [{ api: 'v3' }, 'api'],
    [{ version: 'both' }, 'version'],
    [{ baseUrl: 'not a url' }, 'baseUrl'],
    [{ token: '' }, 'token'],
    [{ resolveRelations: ['article'] }, 'resolveRelations.0'],
    [{ offline: 'sometimes' }, 'offline'],
    [{ pollMs: 10 }, 'pollMs'],
    [{ webhook: { path: 'hook' } }, 'webhook.path'],
    [{ webhook: { maxBytes: 0 } }, 'webhook.maxBytes'],
    [{ embedded: { data: 'space', demo: { stories: 5 } } }, 'embedded.demo.stories'],
  ])('%j is refused with an error naming %s', (input, name) => {
    expect(() => contentSync(input as never)).toThrow(OptionsError);
    expect(() => contentSync(input as never)).toThrow(`option "${name}"`);
  });

  it.each([
    ['https://api.example.com/v2/cdn/stories?token=secret-token', /has a query/],
    ['https://api.example.com/#token=secret-token', /has a fragment/],
    ['https://user:secret-token@api.example.com', /holds a user name or password/],
  ])('refuses baseUrl %s when the config loads, quoting no secret', (baseUrl, why) => {
    const failure = (() => {
      try {
        contentSync({ baseUrl });
      } catch (err) {
        return err as Error;
      }
    })();
    expect(failure).toBeInstanceOf(OptionsError);
    expect(failure?.message).toMatch(/option "baseUrl"/);
    expect(failure?.message).toMatch(why);
    expect(failure?.message).not.toContain('secret-token');
  });

  it('refuses an unknown key and names it', () => {
    let error: unknown;
    try {
      contentSync({ resolveLink: 'url' } as never);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(OptionsError);
    expect((error as Error).message).toContain('resolveLink');
  });

  it('refuses a base URL or token beside the embedded service (they would be ignored)', () => {
    const embedded = { data: 'content/space' };
    expect(() => contentSync({ embedded, baseUrl: 'https://api.example.com' })).toThrow(
      /option "baseUrl": the embedded service is the API when "embedded" is set/,
    );
    expect(() => contentSync({ embedded, token: 'real-token' })).toThrow(
      /option "token": the embedded service is the API/,
    );
    expect(() => contentSync({ embedded })).not.toThrow();
  });

  it('refuses an unknown key inside webhook and names it', () => {
    expect(() => contentSync({ webhook: { secrets: 'x' } } as never)).toThrow(/secrets/);
  });

  it.each([
    [{ depht: 2 }, 'unknown option "depht" (did you mean "depth"?)'],
    [{ resolveLink: 'url' }, 'unknown option "resolveLink" (did you mean "resolveLinks"?)'],
    [{ webhook: { secrets: 'x' } }, 'unknown option "webhook.secrets" (did you mean "webhook.secret"?)'],
    [{ embedded: { data: 'space', admn: true } }, 'unknown option "embedded.admn" (did you mean "embedded.admin"?)'],
    [{ zzzzzzzz: 1 }, 'unknown option "zzzzzzzz"'],
    // A required key misspelt: the misspelling, not the key it lacks.
    [
      { embedded: { data: 'space', demo: { storys: 200 } } },
      'unknown option "embedded.demo.storys" (did you mean "embedded.demo.stories"?)',
    ],
    [{ embedded: { data: 'space', demo: {} } }, 'option "embedded.demo.stories": required (number)'],
    [{ embedded: { demo: { stories: 2 } } }, 'option "embedded.data": required (string)'],
  ])('%j suggests the nearest option, without a stack trace', (input, message) => {
    let error: Error | undefined;
    try {
      contentSync(input as never);
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).toBe(`vite-plugin-content-sync: ${message}`);
    // What Vite prints of an error thrown while it loads a config.
    expect(error?.stack).toBe(`OptionsError: ${error?.message}`);
  });

  it('exports the error classes from the package entry, and only ones the code throws', async () => {
    const entry: Record<string, unknown> = await import('../../src/index.js');
    const names = [
      'OptionsError',
      'PipelineError',
      'ContentApiError',
      'SchemaError',
      'SyncError',
      'WebhookEventError',
      'AssetSyncError',
    ];
    names.push(
      'DamagedSnapshotError',
      'SnapshotWriteError',
      'SpaceDirectoryError',
      'SnapshotBusyError',
      'SnapshotLockedError',
    );
    for (const name of names)
      expect((entry[name] as { prototype?: unknown } | undefined)?.prototype, name).toBeInstanceOf(Error);
    expect(() => contentSync({ depth: -1 })).toThrow(entry.OptionsError as typeof Error);
    expect(entry).not.toHaveProperty('CacheVersionMoved');
  });

  it('warns once when the config holds the plugin twice with different options (every content: import goes through the first)', async () => {
    const twice = async (...plugins: ReturnType<typeof contentSync>[]) => {
      const logger = capturingLogger();
      await resolveConfig({ configFile: false, logLevel: 'silent', customLogger: logger, plugins }, 'build');
      return logger.lines.filter((l) => l.level === 'warn' && l.msg.includes('contentSync() is in this config'));
    };
    const warned = await twice(contentSync({ dir: '.a' }), contentSync({ dir: '.b' }));
    expect(warned).toHaveLength(1);
    expect(warned[0]!.msg).toContain('2 times with different options');
    // The same options twice share one pipeline: nothing to tell.
    expect(await twice(contentSync({ dir: '.a' }), contentSync({ dir: '.a' }))).toEqual([]);
    expect(await twice(contentSync({ dir: '.a' }))).toEqual([]);
  });
});
