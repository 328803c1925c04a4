/**
 * The words and the details of a failure message: the Controller and Agent put the words on the
 * first line and hashes, URLs and codes on the lines after (`withDetails` in src/shared/failure-text.ts,
 * which the web UI does not bundle). Any other message is all words.
 */
export function splitDetails(text: string): { words: string; details: string[] } {
  const [words = '', ...details] = text.split('\n');
  return { words, details };
}
