/**
 * Fault injection: failures at given rates, seeded and reproducible.
 *
 * SPEC is a comma-separated list of `kind=rate` items plus an optional
 * `seed=S`, for example `429=0.05,503=0.02,reset=0.01,slow=0.01,seed=7`.
 * Kinds: 429, 500, 502, 503, 504 (that status with a JSON body), reset (the
 * connection is destroyed without an answer), truncate (a 200 whose body is
 * cut in half), slow (the answer is delayed by `slowMs`, default 2000; set
 * with `slowms=N`). Whether request number n of a given URL fails depends only
 * on the seed, the URL and n, never on how requests interleave, so a run
 * replays exactly.
 */
export const FAULT_KINDS = ['429', '500', '502', '503', '504', 'reset', 'truncate', 'slow'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultPlan {
  rates: Partial<Record<FaultKind, number>>;
  seed: number;
  slowMs: number;
}

export class FaultSpecError extends Error {
  override name = 'FaultSpecError';
}

export function parseFaultSpec(spec: string): FaultPlan {
  const plan: FaultPlan = { rates: {}, seed: 1, slowMs: 2000 };
  let total = 0;
  for (const raw of spec.split(',')) {
    const item = raw.trim();
    if (!item) continue;
    const m = /^([A-Za-z0-9]+)\s*[=:]\s*([0-9.]+)$/.exec(item);
    if (!m) throw new FaultSpecError(`--faults: cannot read "${item}"; expected kind=rate, e.g. 503=0.05`);
    const key = m[1]!.toLowerCase();
    const value = Number(m[2]);
    if (!Number.isFinite(value)) throw new FaultSpecError(`--faults: "${item}" has no number`);
    if (key === 'seed') {
      plan.seed = Math.trunc(value);
    } else if (key === 'slowms') {
      // A timer holds at most 2^31-1 ms: a longer delay would fire after 1 ms, not be slow at all.
      if (value > 2 ** 31 - 1) throw new FaultSpecError(`--faults: slowms is at most ${2 ** 31 - 1} (about 24.8 days)`);
      plan.slowMs = value;
    } else if ((FAULT_KINDS as readonly string[]).includes(key)) {
      if (value < 0 || value > 1) throw new FaultSpecError(`--faults: the rate of ${key} must be between 0 and 1`);
      plan.rates[key as FaultKind] = value;
      total += value;
    } else {
      throw new FaultSpecError(
        `--faults: unknown kind "${key}"; kinds are ${FAULT_KINDS.join(', ')}, plus seed and slowms`,
      );
    }
  }
  if (total > 1) throw new FaultSpecError('--faults: the rates add up to more than 1');
  return plan;
}

/** FNV-1a over a string, mixed with the seed, finished with a murmur-style avalanche. */
function hash01(seed: number, text: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 0x1_0000_0000;
}

export class FaultInjector {
  readonly plan: FaultPlan;
  readonly #seen = new Map<string, number>();

  constructor(plan: FaultPlan) {
    this.plan = plan;
  }

  /** The fault for this request, if any. `key` identifies the request (its URL). */
  decide(key: string): FaultKind | null {
    const n = (this.#seen.get(key) ?? 0) + 1;
    this.#seen.set(key, n);
    const draw = hash01(this.plan.seed, `${n}\u0000${key}`);
    let edge = 0;
    for (const kind of FAULT_KINDS) {
      edge += this.plan.rates[kind] ?? 0;
      if (draw < edge) return kind;
    }
    return null;
  }
}
