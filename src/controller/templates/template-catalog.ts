import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaProblem } from '../../shared/template-check.js';
import { checkTemplateRules } from '../../shared/template-rules.js';
import type { Template } from '../../shared/templates.js';

/** A template file the Controller refuses to start with; the message names the file and the field. */
export class TemplateFileError extends Error {
  constructor(readonly file: string, readonly problem: string) {
    super(`template ${file}: ${problem}`);
    this.name = 'TemplateFileError';
  }
}

/**
 * The project's `templates/` directory. Found by walking up from this module to the package root,
 * so it is the same from `src/` under tsx and from `dist/src/` after a build.
 */
export function defaultTemplatesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the Cairn package root to locate templates/');
    dir = parent;
  }
  return join(dir, 'templates');
}

/** Parses and checks one template file's text; `file` is its path, named in every message. */
export function parseTemplate(file: string, text: string): Template {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TemplateFileError(file, `not valid JSON (${(error as Error).message})`);
  }
  const invalid = schemaProblem(value);
  if (invalid) throw new TemplateFileError(file, invalid);
  const template = value as Template;
  const expectedFile = `${template.id}.json`;
  if (basename(file) !== expectedFile) throw new TemplateFileError(file, `id: "${template.id}" must be stored as ${expectedFile}`);
  const problem = checkTemplateRules(template);
  if (problem) throw new TemplateFileError(file, problem);
  return template;
}

/** The service templates the Controller offers, loaded once at start from one directory. */
export class TemplateCatalog {
  private readonly byId: Map<string, Template>;

  constructor(templates: Template[]) {
    this.byId = new Map([...templates].sort((a, b) => (a.id < b.id ? -1 : 1)).map((t) => [t.id, t]));
  }

  /** Reads every `*.json` in `dir`; any bad file refuses the whole catalog. */
  static async load(dir: string = defaultTemplatesDir()): Promise<TemplateCatalog> {
    let names: string[];
    try {
      names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
    } catch (error) {
      throw new TemplateFileError(dir, `cannot read the templates directory (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    if (names.length === 0) throw new TemplateFileError(dir, 'no *.json template files in the templates directory');
    const templates: Template[] = [];
    for (const name of names) {
      const file = join(dir, name);
      templates.push(parseTemplate(file, await readFile(file, 'utf8')));
    }
    return new TemplateCatalog(templates);
  }

  get(id: string): Template | undefined {
    return this.byId.get(id);
  }

  /** Ordered by id. */
  list(): Template[] {
    return [...this.byId.values()];
  }

  supports(id: string, version: string): boolean {
    return this.byId.get(id)?.versions.includes(version) ?? false;
  }
}
