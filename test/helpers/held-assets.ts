/**
 * A snapshot holding many asset files and the asset phase of a sync over it, against an asset CDN
 * on loopback: used by the tests of what the phase does and by `npm run bench -- scale` (its cost).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ASSET_INDEX, SnapshotTransaction, assetIndexText, sha256, type AssetFile } from '../../src/snapshot/index.js';
import { syncAssets, type AssetReference, type AssetSyncResult } from '../../src/sync/assets.js';

const SPACE = 4242;
const FIRST_ID = 610_000_000;
const HELD = 'held bytes';

/** An asset CDN on loopback: every file asked after with an ETag is unchanged, and any other has the held bytes. */
export async function unchangedCdn(): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
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
export async function heldAssets(dir: string, cdn: string, stories: number, assets: number): Promise<string> {
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
export function referencesOf(cdn: string, stories: number, assets: number) {
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
export async function assetPhase(
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
