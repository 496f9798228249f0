/**
 * sharp, loaded on first use: the service, sync and build only pay for the
 * image library when an image is actually rendered or transformed.
 */
import type { Sharp, SharpOptions } from 'sharp';

type SharpFactory = (input?: Buffer | string, options?: SharpOptions) => Sharp;
let loading: Promise<SharpFactory> | undefined;

export function loadSharp(): Promise<SharpFactory> {
  loading ??= import('sharp').then(
    (m) => (m.default ?? m) as unknown as SharpFactory,
    (err: unknown) => {
      loading = undefined;
      throw new Error(`images need the sharp package (npm install sharp): ${(err as Error).message}`);
    },
  );
  return loading;
}
