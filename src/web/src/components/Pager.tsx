import { useCallback, useState } from 'react';

/**
 * Cursor paging as the API does it: the current page's cursor plus the ones before it, so
 * `Previous` goes back without the API having to page backwards.
 */
export function useCursorPager() {
  const [stack, setStack] = useState<string[]>([]);
  const cursor = stack.at(-1);
  return {
    cursor,
    page: stack.length + 1,
    next: useCallback((nextCursor: string) => setStack((s) => [...s, nextCursor]), []),
    previous: useCallback(() => setStack((s) => s.slice(0, -1)), []),
    reset: useCallback(() => setStack([]), []),
  };
}

interface PagerProps {
  pager: ReturnType<typeof useCursorPager>;
  nextCursor: string | undefined;
  label: string;
}

export function Pager({ pager, nextCursor, label }: PagerProps) {
  if (pager.page === 1 && !nextCursor) return null;
  return (
    <nav aria-label={label} className="pager">
      <button type="button" onClick={pager.previous} disabled={pager.page === 1}>Previous</button>
      <span>Page {pager.page}</span>
      <button type="button" onClick={() => nextCursor && pager.next(nextCursor)} disabled={!nextCursor}>Next</button>
    </nav>
  );
}
