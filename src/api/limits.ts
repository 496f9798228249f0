/**
 * The contract's rate tiers: how many requests per second a request of a
 * given kind may be sent at. Both the local service (which enforces them)
 * and the client (which paces itself by them) use this one definition.
 *
 * Single items, datasources, datasource entries, tags and the space: 50/s.
 * Story listings: 50/s up to 25 per page, 15/s up to 50, 10/s up to 75,
 * 5/s up to 100. The contract leaves open which tier holds exactly 50 and
 * 75 (its bands overlap there); each belongs to the band it ends here, as 25
 * does to the first ("up to").
 */
export function tierRate(perPage: number | undefined): number {
  if (perPage === undefined || perPage <= 25) return 50;
  if (perPage <= 50) return 15;
  if (perPage <= 75) return 10;
  return 5;
}

/** The share of one second's budget a request spends. */
export function requestCost(kind: 'single' | 'list', perPage?: number): number {
  return kind === 'single' ? 1 / 50 : 1 / tierRate(perPage);
}
