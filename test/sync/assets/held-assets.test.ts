/**
 * A full sync (or an asset webhook) asks the CDN after every held asset file, and a sync downloads
 * again the held files that are gone: what the phase does over a snapshot of many stories (its
 * cost, which grew with the product of stories and assets, is measured by `npm run bench -- scale`).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assetPhase, heldAssets, referencesOf, unchangedCdn } from '../../helpers/held-assets.js';
import { removeTempDirs, tempDir } from '../support.js';

afterAll(removeTempDirs);

const STORIES = 2_000;
const ASSETS = 50;

describe('held assets asked after again', () => {
  it('are each asked after once, and found unchanged', async () => {
    const cdn = await unchangedCdn();
    try {
      const dir = await tempDir('held-assets');
      await heldAssets(dir, cdn.url, STORIES, ASSETS);
      const asked = await assetPhase(dir, cdn.url, STORIES, true);
      expect(asked.result).toMatchObject({ referenced: ASSETS, unchanged: ASSETS, downloaded: 0, missing: [] });
      expect(cdn.requests()).toBe(ASSETS);
    } finally {
      await cdn.close();
    }
  });

  it('that are gone are downloaded again, each once', async () => {
    const cdn = await unchangedCdn();
    try {
      const dir = await tempDir('gone-assets');
      const file = await heldAssets(dir, cdn.url, STORIES, ASSETS);
      await fs.rm(path.join(dir, file));
      const gone = await assetPhase(dir, cdn.url, STORIES, false, referencesOf(cdn.url, STORIES, ASSETS));
      expect(gone.result).toMatchObject({ referenced: ASSETS, downloaded: ASSETS, missing: [] });
      expect(cdn.requests()).toBe(ASSETS);
    } finally {
      await cdn.close();
    }
  });
});
