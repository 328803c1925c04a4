import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loaderOptions } from '../src/shared/link/proto.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Where the checked-in types live; `npm run gen:proto` rewrites it, a unit test fails when it is stale. */
export const generatedDir = join(root, 'src', 'shared', 'link', 'generated');
const protoDir = 'proto';
const protoFiles = ['cairn/agent/v1/agent.proto'];

/**
 * The generator's flags, taken from the loader options so the types describe exactly what the
 * loader decodes. A message type keeps its proto name for the decoded shape (every field present);
 * `…Input` is the shape that may be written, where any field can be left out.
 */
export function generatorArgs(outDir: string): string[] {
  const { keepCase, longs, enums, defaults, arrays, oneofs } = loaderOptions;
  return [
    ...(keepCase ? ['--keepCase'] : []),
    ...(longs ? [`--longs=${longs.name}`] : []),
    ...(enums ? [`--enums=${enums.name}`] : []),
    ...(defaults ? ['--defaults'] : []),
    ...(arrays ? ['--arrays'] : []),
    ...(oneofs ? ['--oneofs'] : []),
    '--includeComments',
    '--grpcLib=@grpc/grpc-js',
    '--importFileExtension=.js',
    '--outputTemplate=%s',
    '--inputTemplate=%sInput',
    '-I', protoDir,
    '-O', outDir,
    ...protoFiles,
  ];
}

/** Writes the TypeScript types of the proto files into `outDir`, replacing what was there. */
export function generateProtoTypes(outDir: string = generatedDir): void {
  rmSync(outDir, { recursive: true, force: true });
  const generator = createRequire(import.meta.url).resolve('@grpc/proto-loader/build/bin/proto-loader-gen-types.js');
  // Run from the package root: the generated files name their proto by its path from there.
  const result = spawnSync(process.execPath, [generator, ...generatorArgs(outDir)], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`proto-loader-gen-types failed (${result.status ?? result.signal}): ${result.stderr}`);
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) generateProtoTypes();
