/**
 * A failure as people read it: the words on the first line, what only someone digging needs
 * (hashes, URLs, error codes) on the lines after. Pages show the first line and fold the rest
 * away, so a 64-hex hash never fills a card.
 */
export function withDetails(words: string, ...details: (string | undefined)[]): string {
  return [words, ...details.filter((d): d is string => !!d)].join('\n');
}

/** The words and the details of a text `withDetails` made (the web UI has its own copy in src/web/src/format); any other text is all words. */
export function splitDetails(text: string): { words: string; details: string[] } {
  const [words = '', ...details] = text.split('\n');
  return { words, details };
}
