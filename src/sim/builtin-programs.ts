import { extname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BuiltinProgram } from '../shared/templates.js';

/**
 * How an Agent installs a `builtin` template: it writes the text of `builtinLauncherSource(program)`
 * into `.cairn/<install.file>`, and the template's run command starts Node on that file.
 *
 * The launcher imports the program from this Cairn installation rather than copying it, because the
 * program needs Cairn's own node_modules (yauzl, yaml). Built (`dist/`), it imports the `.js`; run
 * from `src/` under tsx (tests, development), it first registers tsx so the `.ts` file loads with a
 * plain `node` command.
 */
export function builtinProgramModule(program: BuiltinProgram): string {
  // Next to this module, with its extension: `.js` in dist/, `.ts` in src/.
  const ownExtension = extname(fileURLToPath(import.meta.url));
  return fileURLToPath(new URL(`./${program}${ownExtension}`, import.meta.url));
}

export function builtinLauncherSource(program: BuiltinProgram): string {
  const moduleUrl = pathToFileURL(builtinProgramModule(program)).href;
  const header = `// Written by the Cairn Agent: starts the ${program} program of this Cairn installation.\n`;
  if (moduleUrl.endsWith('.ts')) {
    const tsxApi = import.meta.resolve('tsx/esm/api');
    return `${header}import { register } from ${JSON.stringify(tsxApi)};\nregister();\nawait import(${JSON.stringify(moduleUrl)});\n`;
  }
  return `${header}await import(${JSON.stringify(moduleUrl)});\n`;
}
