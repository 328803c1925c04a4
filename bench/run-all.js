#!/usr/bin/env node
// Runs every bench/*.ts in its own process, one after another, through tsx; stops at the first failure.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
const benches = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && (!only || f.includes(only))).sort();
for (const file of benches) {
  process.stdout.write(`\n# bench/${file}\n`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', join(dir, file)], { stdio: 'inherit' });
  if (run.status !== 0) {
    process.stderr.write(`bench/${file} failed (exit ${run.status ?? run.signal})\n`);
    process.exit(1);
  }
}
