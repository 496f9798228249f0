/**
 * What a listing answer's `Total` and `Per-Page` headers promise, and whether a page keeps that
 * promise. A count is never trusted alone: a client pages until a short page, and every page must
 * hold exactly what the count says it holds; anything else is an answer to refuse, never a reason
 * to conclude that content vanished.
 */

/** The most items one listing may claim: a count above this is not a space's but a fault's. */
export const MAX_LISTING_ITEMS = 1_000_000;

export interface ListingCount {
  total: number;
  perPage: number;
}

const whole = (value: string | null): number | undefined =>
  value !== null && /^\s*\d{1,15}\s*$/.test(value) ? Number(value) : undefined;

/**
 * `Total` and `Per-Page` of a listing asked with `per_page=asked`, or why they cannot be used.
 * `Per-Page` may be smaller than asked (a service may cap it), never larger.
 */
export function readListingCount(headers: Headers, asked: number, maxItems = MAX_LISTING_ITEMS): ListingCount | string {
  const totalText = headers.get('total');
  const perPageText = headers.get('per-page');
  const total = whole(totalText);
  const perPage = whole(perPageText);
  if (totalText === null) return 'has no Total header';
  if (total === undefined) return `has a Total header that is not a count (${JSON.stringify(totalText.slice(0, 40))})`;
  if (total > maxItems) return `claims Total ${total}, more than the ${maxItems} items a listing of a space may hold`;
  if (perPageText === null) return 'has no Per-Page header';
  if (perPage === undefined || perPage < 1 || perPage > asked) {
    return `has a Per-Page header (${JSON.stringify(perPageText.slice(0, 40))}) that is not a page size between 1 and the ${asked} asked for`;
  }
  return { total, perPage };
}

/** How many items page `page` (from 1) of a listing of `total` holds. */
export function itemsOnPage(count: ListingCount, page: number): number {
  return Math.max(0, Math.min(count.perPage, count.total - (page - 1) * count.perPage));
}

/**
 * The last page to ask for: the first that must be short. When `total` fills its pages exactly,
 * that is the empty page after them, so a count too small by whole pages is still caught.
 */
export function lastPage(count: ListingCount): number {
  return Math.floor(count.total / count.perPage) + 1;
}
