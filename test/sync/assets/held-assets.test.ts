/**
 * A full sync (or an asset webhook) asks the CDN after every held asset file, and a sync downloads
 * again the held files that are gone: the work besides the requests grows with the snapshot's
 * stories and assets, not with their product. Compared in CPU time with an asset phase of the same
 * snapshot known to be linear, with a factor far from what either form gives, so that a loaded
 * machine cannot tip it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ASSET_INDEX,
  SnapshotTransaction,
  assetIndexText,
  sha256,
  type AssetFile,
} from '../../../src/snapshot/index.js';
import { syncAssets, type AssetReference, type AssetSyncResult } from '../../../src/sync/assets.js';
import { removeTempDirs, tempDir } from '../support.js';

afterAll(removeTempDirs);

const SPACE = 4242;
const FIRST_ID = 610_000_000;
const HELD = 'held bytes';

/** An asset CDN on loopback: every file asked after with an ETag is unchanged, and any other has the held bytes. */
async function unchangedCdn(): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    if (req.headers['if-none-match']) res.writeHead(304).end();
    else res.writeHead(200, { 'content-type': 'text/plain' }).end(HELD);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A snapshot's asset index of `stories` stories and `assets` held assets: every story uses the
 * first asset, the last story every asset.
 */
async function heldAssets(dir: string, cdn: string, stories: number, assets: number): Promise<string> {
  const bytes = Buffer.from(HELD);
  const digest = sha256(bytes);
  const file = `assets/${digest}.txt`;
  await fs.mkdir(path.join(dir, 'assets'), { recursive: true });
  await fs.writeFile(path.join(dir, file), bytes);
  const files: Record<string, AssetFile> = {};
  const paths: string[] = [];
  for (let i = 0; i < assets; i++) {
    const p = `/f/${SPACE}/0x0/h${i}/file-${i}.txt`;
    paths.push(p);
    const url = `${cdn}${p}`;
    files[p] = { url, file, sha256: digest, bytes: bytes.length, type: 'text/plain', width: 0, height: 0, etag: '"1"' };
  }
  const used: Record<string, string[]> = {};
  for (let i = 0; i < stories - 1; i++) used[String(FIRST_ID + i)] = [paths[0]!];
  used[String(FIRST_ID + stories - 1)] = paths;
  await fs.writeFile(path.join(dir, ASSET_INDEX), assetIndexText({ files, stories: used }));
  return file;
}

/** The asset references of a story of that index, as its record would give them. */
function referencesOf(cdn: string, stories: number, assets: number) {
  return async (id: number): Promise<AssetReference[]> => {
    const count = id === FIRST_ID + stories - 1 ? assets : 1;
    return Array.from({ length: count }, (_, i) => ({
      url: `${cdn}/f/${SPACE}/0x0/h${i}/file-${i}.txt`,
      storyId: id,
      field: 'image',
    }));
  };
}

/** The asset phase of a sync that changed no story, and its CPU time in microseconds. */
async function assetPhase(
  dir: string,
  cdn: string,
  stories: number,
  revalidate: boolean,
  references: (id: number) => Promise<AssetReference[]> = async () => [],
): Promise<{ result: AssetSyncResult; cpu: number }> {
  const txn = await SnapshotTransaction.begin(dir);
  try {
    const before = process.cpuUsage();
    const result = await syncAssets({
      txn,
      out: dir,
      spaceId: SPACE,
      baseUrl: cdn,
      storyIds: Array.from({ length: stories }, (_, i) => FIRST_ID + i),
      changed: new Set(),
      references,
      revalidate,
    });
    const spent = process.cpuUsage(before);
    return { result, cpu: spent.user + spent.system };
  } finally {
    await txn.abort();
  }
}

describe('held assets asked after again', () => {
  it('cost their requests, not a search of every story for each', async () => {
    const cdn = await unchangedCdn();
    try {
      const dir = await tempDir('held-assets');
      const stories = 50_000;
      const assets = 200;
      await heldAssets(dir, cdn.url, stories, assets);
      await assetPhase(dir, cdn.url, stories, true); // warm up
      const trusted = await assetPhase(dir, cdn.url, stories, false);
      const asked = await assetPhase(dir, cdn.url, stories, true);
      expect(asked.result).toMatchObject({ referenced: assets, unchanged: assets, downloaded: 0, missing: [] });
      expect(cdn.requests()).toBe(2 * assets);
      // Each held asset's story was found by a search of every story: 200 searches of 50,000 took
      // about fifteen times the trusting phase; a lookup costs little besides the requests.
      expect(asked.cpu).toBeLessThan(trusted.cpu * 5);
    } finally {
      await cdn.close();
    }
  });

  it('that are gone cost their downloads, not a search of every story for each', async () => {
    const cdn = await unchangedCdn();
    try {
      const dir = await tempDir('gone-assets');
      const stories = 50_000;
      const assets = 200;
      const file = await heldAssets(dir, cdn.url, stories, assets);
      const references = referencesOf(cdn.url, stories, assets);
      await assetPhase(dir, cdn.url, stories, true); // warm up
      const asked = await assetPhase(dir, cdn.url, stories, true);
      await fs.rm(path.join(dir, file));
      const gone = await assetPhase(dir, cdn.url, stories, false, references);
      expect(gone.result).toMatchObject({ referenced: assets, downloaded: assets, missing: [] });
      // The stories that use each gone asset were found by a search of every story: about fifteen
      // times as much as asking after the held files; a lookup costs about the same.
      expect(gone.cpu).toBeLessThan(asked.cpu * 5);
    } finally {
      await cdn.close();
    }
  });
});
