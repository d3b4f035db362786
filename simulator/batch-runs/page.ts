/** One page of a list, as both vendors page theirs: the items, and whether more lie beyond them. */
export interface Page<T> {
  readonly data: readonly T[];
  readonly hasMore: boolean;
}

/** Where a page starts: after an item (the next page), before one (the previous page), or at the top. */
export interface PageCursor {
  readonly limit: number;
  readonly afterId?: string;
  readonly beforeId?: string;
}

/**
 * The page of `items` (already in list order) the cursor asks for: the `limit` items right after
 * `afterId`, or right before `beforeId`, else the first ones. A cursor naming no item gives an empty page.
 */
export function pageOf<T extends { readonly id: string }>(items: readonly T[], cursor: PageCursor): Page<T> {
  const { limit, afterId, beforeId } = cursor;
  if (beforeId !== undefined) {
    const end = items.findIndex((item) => item.id === beforeId);
    if (end < 0) return { data: [], hasMore: false };
    const start = Math.max(0, end - limit);
    return { data: items.slice(start, end), hasMore: start > 0 };
  }
  const start = afterId === undefined ? 0 : items.findIndex((item) => item.id === afterId) + 1;
  if (start === 0 && afterId !== undefined) return { data: [], hasMore: false };
  return { data: items.slice(start, start + limit), hasMore: start + limit < items.length };
}
