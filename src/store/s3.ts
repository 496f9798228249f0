/**
 * The object store: a bucket and a prefix on S3 or an S3-compatible service, through the AWS
 * SDK for JavaScript v3 (loaded here, and only when a store is configured). Credentials, region
 * and endpoint come from the SDK's standard configuration (AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL, profiles); a custom
 * endpoint (MinIO, Ceph, R2) gets path-style addressing, which they all speak.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { parseStoreUrl, type StoreLocation } from './location.js';
import { loadOptional } from './optional.js';

type Sdk = typeof import('@aws-sdk/client-s3');

export interface StoredObject {
  /** Key below the store's prefix. */
  key: string;
  modified: Date;
}

const isMissing = (err: unknown): boolean => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
};

export class ObjectStore {
  readonly #sdk: Sdk;
  readonly #client: S3Client;
  readonly #where: StoreLocation;

  private constructor(
    readonly url: string,
    sdk: Sdk,
    where: StoreLocation,
    timeoutMs: number,
  ) {
    this.#sdk = sdk;
    this.#where = where;
    const endpoint = process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL;
    this.#client = new sdk.S3Client({
      ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
      // S3-compatible services need a region name too, and most accept any.
      ...(endpoint && !process.env.AWS_REGION && !process.env.AWS_DEFAULT_REGION ? { region: 'us-east-1' } : {}),
      maxAttempts: 3,
      // A request without an answer for a minute fails (and is tried again): by default the SDK only warns, and waits on.
      // The request timeout ends with the headers: a body that stops arriving is failed by the socket's.
      requestHandler: {
        connectionTimeout: 5_000,
        requestTimeout: timeoutMs,
        throwOnRequestTimeout: true,
        socketTimeout: timeoutMs,
      },
      // Every object is checked against its sha256 by the reader; the SDK's own default checksums
      // are not understood by every S3-compatible service.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** Opens `s3://bucket/prefix` (no request is made yet); `timeoutMs`: how long a request may go without an answer. */
  static async open(url: string, { timeoutMs = 60_000 }: { timeoutMs?: number } = {}): Promise<ObjectStore> {
    const where = parseStoreUrl(url);
    const sdk = await loadOptional('@aws-sdk/client-s3', `the store ${url}`, () => import('@aws-sdk/client-s3'));
    return new ObjectStore(url, sdk, where, timeoutMs);
  }

  #key(key: string): string {
    return this.#where.prefix ? `${this.#where.prefix}/${key}` : key;
  }

  /** The object's bytes, or undefined when there is none. */
  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      const answer = await this.#client.send(
        new this.#sdk.GetObjectCommand({ Bucket: this.#where.bucket, Key: this.#key(key) }),
      );
      return answer.Body ? await answer.Body.transformToByteArray() : new Uint8Array();
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async has(key: string): Promise<boolean> {
    try {
      await this.#client.send(new this.#sdk.HeadObjectCommand({ Bucket: this.#where.bucket, Key: this.#key(key) }));
      return true;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  async put(key: string, body: Uint8Array | string): Promise<void> {
    await this.#client.send(
      new this.#sdk.PutObjectCommand({ Bucket: this.#where.bucket, Key: this.#key(key), Body: body }),
    );
  }

  /** Every object whose key starts with `prefix`, page by page. */
  async *list(prefix: string): AsyncGenerator<StoredObject> {
    const strip = this.#key('').length;
    let token: string | undefined;
    do {
      const page = await this.#client.send(
        new this.#sdk.ListObjectsV2Command({
          Bucket: this.#where.bucket,
          Prefix: this.#key(prefix),
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      for (const o of page.Contents ?? []) {
        if (o.Key) yield { key: o.Key.slice(strip), modified: o.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (let at = 0; at < keys.length; at += 1000) {
      const answer = await this.#client.send(
        new this.#sdk.DeleteObjectsCommand({
          Bucket: this.#where.bucket,
          Delete: { Objects: keys.slice(at, at + 1000).map((k) => ({ Key: this.#key(k) })), Quiet: true },
        }),
      );
      const failed = answer.Errors ?? [];
      if (failed.length)
        throw new Error(`could not delete ${failed.length} object(s) of ${this.url}: ${failed[0]!.Message}`);
    }
  }

  close(): void {
    this.#client.destroy();
  }
}
