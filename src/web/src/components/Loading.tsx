/** Shown while a query has no data yet. */
export function Loading({ what }: { what: string }) {
  return <p role="status" className="loading">Loading {what}…</p>;
}
