/**
 * The recorded real spaces (`../shared/realdata`, beside the project's root).
 *
 * They live outside the repository, so a clone with nothing beside it lacks them: the tests that read
 * them then skip, each suite saying what is missing. CI sets `REQUIRE_REALDATA=1`, which turns the
 * skip into a failure, so a run there never passes without them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

/** The folder of the recorded spaces, as a directory URL. */
export const REALDATA = new URL('../../../shared/realdata/', import.meta.url);

export const hasRealdata = existsSync(REALDATA);

const required = process.env.REQUIRE_REALDATA === '1';

const MISSING = `needs the recorded real spaces in ${fileURLToPath(REALDATA)}, which is absent`;

/** A recorded file, parsed; `file` is relative to the realdata folder. */
export function realdata<T = any>(file: string): T {
  const url = new URL(file, REALDATA);
  if (!existsSync(url)) {
    const why = hasRealdata ? `${fileURLToPath(url)} is missing` : MISSING;
    throw new Error(`realdata: ${why}${required ? ' (REQUIRE_REALDATA=1)' : ''}`);
  }
  return JSON.parse(readFileSync(url, 'utf8')) as T;
}

/** Whether tests that read realdata run: the data is there, or CI requires it (and then fails loudly). */
export const realdataRuns = hasRealdata || required;

/**
 * A suite that reads realdata. Without the data its body is not even collected (bodies usually load
 * files), and one skipped test says why.
 */
export function describeRealdata(name: string, body: () => void): void {
  if (realdataRuns) describe(name, body);
  else describe.skip(name, () => it(MISSING, () => {}));
}

/** One test that reads realdata, inside a suite that otherwise does not. */
export function itRealdata(name: string, body: () => unknown, timeout?: number): void {
  if (realdataRuns) it(name, body, timeout);
  else it.skip(`${name} (${MISSING})`, () => {});
}
