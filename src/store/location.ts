/** Where a store lives: `s3://bucket/prefix`. */
import { StoreConfigError } from './optional.js';

export interface StoreLocation {
  bucket: string;
  /** Key prefix without slashes at either end ('' for the bucket's root). */
  prefix: string;
}

export function parseStoreUrl(url: string): StoreLocation {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!match) {
    throw new StoreConfigError(
      `store "${url}" is not an S3 location such as s3://my-bucket/content (a bucket name of lower-case letters, digits, dots and hyphens, then an optional prefix)`,
    );
  }
  return { bucket: match[1]!, prefix: (match[2] ?? '').replace(/^\/+|\/+$/g, '') };
}
