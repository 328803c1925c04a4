/**
 * The start arguments a NeoForge or Forge installer leaves behind, as the Agent runs them from
 * `{cairnDir}` while the game's working directory is the server's root.
 */

/**
 * The arguments of a Java argument file (`java @file`), as the launcher reads it: separated by
 * white space, `"…"` or `'…'` quoting (a quoted part may hold spaces; `\` escapes the next
 * character inside quotes, `\n`, `\t`, `\r` and `\f` their controls), `#` at the start of an
 * argument comments out the rest of its line.
 */
export function parseArgFile(text: string): string[] {
  const args: string[] = [];
  let current: string | undefined;
  let quote: string | undefined;
  const controls: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f' };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && i + 1 < text.length) current += controls[text[++i]] ?? text[i];
      else current += c;
    } else if (c === '"' || c === '\'') {
      quote = c;
      current ??= '';
    } else if (/\s/.test(c)) {
      if (current !== undefined) args.push(current);
      current = undefined;
    } else if (c === '#' && current === undefined) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else {
      current = (current ?? '') + c;
    }
  }
  if (current !== undefined) args.push(current);
  return args;
}

/**
 * The installer's arguments pointed at the installed tree: every `libraries/…` path relative to
 * the install directory (an argument itself, or after `=` or a `:` path separator, as in
 * `-DlibraryDirectory=libraries` and `-p libraries/a.jar:libraries/b.jar`) made
 * `{cairnDir}/libraries/…`, since the game runs in the server's root, not in the tree.
 */
export function rewriteLibraryPaths(args: readonly string[]): string[] {
  return args.map((arg) => arg.replace(/(^|[=:])libraries(?=\/|$|:)/g, '$1{cairnDir}/libraries'));
}

/** A Forge older than 1.17 leaves no argument file: its server jar (`forge-<game>-<loader>.jar`) is run. */
export function legacyJarArgs(jar: string): string[] {
  return ['-jar', `{cairnDir}/${jar}`];
}

/** The path an installer's `run.sh` passes as an argument file (`@libraries/…/unix_args.txt`), if any. */
export function argFileOfRunScript(script: string): string | undefined {
  return /(?:^|\s)@(libraries\/\S*unix_args\.txt)(?=\s|$)/m.exec(script)?.[1];
}
