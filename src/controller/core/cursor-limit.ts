/**
 * Longest page cursor a client may send: the page query schemas bound `cursor` by it, and
 * domain/cursor.ts refuses a longer one before decoding it.
 */
export const maxCursorLength = 200;
