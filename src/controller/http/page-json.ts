/** Each list item's (or answer's) JSON, kept as long as the object lives. */
const objectJsons = new WeakMap<object, string>();

/**
 * `JSON.stringify(value)`, kept per object: for answers handed out again unchanged while what they
 * show is (a user's view: services/identity/views.ts; a server's list item: services/servers/views.ts).
 */
export function objectJson(value: object): string {
  let json = objectJsons.get(value);
  if (json === undefined) objectJsons.set(value, (json = JSON.stringify(value)));
  return json;
}

/**
 * A page's JSON, byte for byte what `JSON.stringify(page)` gives, joined from its items' JSON kept
 * per item object. Only for pages whose items are objects handed out again unchanged while what
 * they show is (a server's list item is the same object while its record and its Node's
 * connection are: services/servers/views.ts): serializing fifty items was a page's largest cost.
 */
export function pageJson(page: { items: readonly object[]; nextCursor?: string }): string {
  let first = true;
  for (const key in page) {
    // Another field, or another order, than paginate's `{items, nextCursor}`: serialized as it is.
    if (key !== (first ? 'items' : 'nextCursor')) return JSON.stringify(page);
    first = false;
  }
  const { items, nextCursor } = page;
  const last = items.length > 0 ? lastPages.get(items[0]) : undefined;
  if (last && last.nextCursor === nextCursor && sameItems(last.items, items)) return last.json;
  const parts = new Array<string>(items.length);
  for (let i = 0; i < items.length; i++) parts[i] = objectJson(items[i]);
  const cursor = nextCursor === undefined ? '' : `,"nextCursor":${JSON.stringify(nextCursor)}`;
  const json = `{"items":[${parts.join(',')}]${cursor}}`;
  if (items.length > 0) lastPages.set(items[0], { items: [...items], nextCursor, json });
  return json;
}

/**
 * The last page's JSON, by its first item object: a page whose items are the very same objects, in
 * the same order, with the same cursor, is the same text (a client polling the list, or many
 * clients reading the same page). Its items are held only while the first item lives.
 */
const lastPages = new WeakMap<object, { items: readonly object[]; nextCursor: string | undefined; json: string }>();

function sameItems(a: readonly object[], b: readonly object[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
