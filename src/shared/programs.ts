import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BuiltinProgram } from './templates.js';

/**
 * How one Cairn program starts another of this installation: the Controller its local Agent, the
 * Agent a server's supervisor shim, and a `builtin` template's launcher a simulated server.
 */

/** Cairn's own programs, by their entry module relative to this one. */
const entries = {
  'cairn-agent': '../agent/main',
  shim: '../agent/runtime/shim-main',
  simcraft: '../sim/simcraft',
  simproxy: '../sim/simproxy',
} as const;

export type CairnProgram = keyof typeof entries;

export interface ProgramCommand {
  command: string;
  args: string[];
}

/** `.js` in dist/, `.ts` when this installation runs from source under tsx (tests, development). */
const ownExtension = extname(fileURLToPath(import.meta.url));
const fromSource = ownExtension === '.ts';

/** The absolute path of a program's entry module. */
export function programModule(program: CairnProgram): string {
  return fileURLToPath(new URL(`${entries[program]}${ownExtension}`, import.meta.url));
}

/**
 * The command that runs a program with this Node: the built `.js`, or the TypeScript source
 * through tsx. tsx is resolved to an absolute path because the child's cwd may be anywhere (the
 * shim's is its state dir).
 */
export function programCommand(program: CairnProgram): ProgramCommand {
  const entry = programModule(program);
  if (!fromSource) return { command: process.execPath, args: [entry] };
  const tsx = createRequire(import.meta.url).resolve('tsx');
  return { command: process.execPath, args: ['--import', tsx, entry] };
}

/** Resolved once: each resolve waits for the loader's thread (3 of the 46 CPU seconds of the fleet bench's 1,000 Agents installing their servers). */
let tsxApi: string | undefined;

/**
 * How an Agent installs a `builtin` template: it writes this text into `.cairn/<install.file>`, and
 * the template's run command starts Node on that file. The launcher imports the program from this
 * Cairn installation rather than copying it, because the program needs Cairn's own node_modules
 * (yauzl, yaml); run from source, it first registers tsx so the `.ts` file loads with plain `node`.
 */
export function builtinLauncherSource(program: BuiltinProgram): string {
  const moduleUrl = pathToFileURL(programModule(program)).href;
  const header = `// Written by the Cairn Agent: starts the ${program} program of this Cairn installation.\n`;
  if (fromSource) {
    tsxApi ??= import.meta.resolve('tsx/esm/api');
    return `${header}import { register } from ${JSON.stringify(tsxApi)};\nregister();\nawait import(${JSON.stringify(moduleUrl)});\n`;
  }
  return `${header}await import(${JSON.stringify(moduleUrl)});\n`;
}

/** The directory holding this installation's package.json. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/**
 * What a boxed game needs of this installation to run a `builtin` program: the code (dist/ or,
 * from source, src/), the packages it imports, and package.json (it makes the code ES modules).
 * Nothing else of the checkout, where a Controller's data dir may live.
 */
export function installationPaths(): string[] {
  const root = packageRoot();
  const code = fromSource ? join(root, 'src') : join(root, 'dist');
  return [code, join(root, 'node_modules'), join(root, 'package.json')];
}
