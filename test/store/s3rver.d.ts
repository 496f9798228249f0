/** The part of s3rver (which ships no types) the store tests use. */
declare module 's3rver' {
  import type { EventEmitter } from 'node:events';
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    port?: number;
    address?: string;
    silent?: boolean;
    directory: string;
    configureBuckets?: Array<{ name: string }>;
  }

  export default class S3rver extends EventEmitter {
    constructor(options: S3rverOptions);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
