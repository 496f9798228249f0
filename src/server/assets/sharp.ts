/**
 * sharp, an optional peer dependency, loaded on first use: the service, sync
 * and build only need the image library when an image is actually rendered
 * or resized, and an install without it works until then.
 */
import type { Sharp, SharpOptions } from 'sharp';

export type SharpFactory = (input?: Buffer | string, options?: SharpOptions) => Sharp;

/** sharp could not be loaded: says which feature needs it and how to install it. */
export class SharpUnavailable extends Error {
  override name = 'SharpUnavailable';
}

const loads = new Map<string, Promise<SharpFactory>>();

function importOnce(specifier: string): Promise<SharpFactory> {
  let loading = loads.get(specifier);
  if (!loading) {
    loading = (import(specifier) as Promise<{ default?: SharpFactory }>).then(
      (m) => (m.default ?? m) as SharpFactory,
      (err: unknown) => {
        loads.delete(specifier);
        throw err;
      },
    );
    loads.set(specifier, loading);
  }
  return loading;
}

/**
 * The sharp module, for `feature` (a phrase such as "the image service").
 * `specifier` is the module to load: `sharp` but for tests of the message.
 */
export async function loadSharp(feature: string, specifier = 'sharp'): Promise<SharpFactory> {
  try {
    return await importOnce(specifier);
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    const why =
      code === 'ERR_MODULE_NOT_FOUND' ? 'it is not installed' : `it could not be loaded (${message.split('\n')[0]})`;
    throw new SharpUnavailable(
      `${feature} needs the image library sharp, an optional peer dependency, and ${why}: npm i -D sharp`,
      { cause: err },
    );
  }
}
