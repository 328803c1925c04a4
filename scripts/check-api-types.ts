/**
 * `npm run lint:api-types`: the CLI and the web UI name the API's shapes only through types derived
 * from the Controller's schemas (src/cli/api-types.ts, src/web/src/api/types.ts). A shape copied by
 * hand goes on compiling after the API changes, so this fails on an interface or object type
 * declared in src/cli or src/web/src whose property names are those of one of the API's object schemas.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Type from 'typebox';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const schemaDir = join(root, 'src/controller/schemas');
const checked = [{ dir: 'src/cli', files: /\.ts$/ }, { dir: 'src/web/src', files: /\.tsx?$/ }];

/** Fewer names than this (`{ id, name }`) say nothing about where a shape came from. */
const minProperties = 3;
/** Naming more than this share of a schema's properties, and nothing else, is a copy of it (a trimmed one is still a copy). */
const minCoverage = 0.5;

/**
 * Query strings and path parameters are left out: a page keeps its filters as text in its address
 * and its form fields, so its filter state names a query's fields by design (audit-filters.ts).
 */
const addressParts = /(Query|Params)$/;

interface Shape { name: string; keys: Set<string> }
interface Declaration extends Shape { file: string; line: number; kind: 'interface' | 'type' }

/** Interfaces and `type X = { ... }` aliases, wherever they are declared in the file. */
function declarations(file: string): Declaration[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Declaration[] = [];
  const visit = (node: ts.Node): void => {
    const isInterface = ts.isInterfaceDeclaration(node);
    const members = isInterface ? node.members : ts.isTypeAliasDeclaration(node) && ts.isTypeLiteralNode(node.type) ? node.type.members : undefined;
    if (members && (isInterface || ts.isTypeAliasDeclaration(node))) {
      const keys = members.flatMap((m) => (m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) ? [m.name.text] : []));
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push({ file, line, kind: isInterface ? 'interface' : 'type', name: node.name.text, keys: new Set(keys) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The API's object shapes: the typebox object schemas the schema modules export, with those nested
 * in them (`nodes.Node.status`, read at run time, so spread field lists count), and the few event
 * shapes the schema modules declare as interfaces (the console and watch streams).
 */
async function apiShapes(): Promise<Shape[]> {
  const shapes: Shape[] = [];
  const visit = (name: string, schema: unknown): void => {
    if (Type.IsObject(schema)) {
      shapes.push({ name, keys: new Set(Object.keys(schema.properties)) });
      for (const [key, value] of Object.entries(schema.properties)) visit(`${name}.${key}`, value);
    } else if (Type.IsArray(schema)) {
      visit(name, schema.items);
    } else if (Type.IsUnion(schema)) {
      for (const member of schema.anyOf) visit(name, member);
    }
  };
  for (const file of readdirSync(schemaDir).filter((f) => f.endsWith('.ts'))) {
    const module = file.replace(/\.ts$/, '');
    const exports = await import(pathToFileURL(join(schemaDir, file)).href) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exports)) if (!addressParts.test(name)) visit(`${module}.${name}`, value);
    for (const d of declarations(join(schemaDir, file))) shapes.push({ name: `${module}.${d.name}`, keys: d.keys });
  }
  return shapes;
}

/** How much of `schema` the declaration covers, when it names only properties of it. */
function coverage(declared: Set<string>, schema: Set<string>): number {
  if (declared.size < minProperties || ![...declared].every((k) => schema.has(k))) return 0;
  return declared.size / schema.size;
}

/** Of equal matches, the exported schema names the shape better than one nested in another (`nodes.Node`, not `migrations.DrainStarted.node`). */
const depth = (shape: Shape) => shape.name.split('.').length;

const shapes = await apiShapes();
let copies = 0;
for (const { dir, files } of checked) {
  const paths = readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).filter((f) => files.test(f));
  for (const d of paths.flatMap((f) => declarations(join(root, dir, f)))) {
    const best = shapes.map((s) => ({ s, c: coverage(d.keys, s.keys) })).filter((m) => m.c > minCoverage).sort((a, b) => b.c - a.c || depth(a.s) - depth(b.s)).at(0);
    if (!best) continue;
    copies++;
    console.error(`${relative(root, d.file)}:${d.line}: ${d.kind} ${d.name} repeats the API schema ${best.s.name}; import its type from src/controller/schemas`);
  }
}
if (copies > 0) process.exit(1);
