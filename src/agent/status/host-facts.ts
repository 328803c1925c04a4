import { statfs } from 'node:fs/promises';
import { arch, availableParallelism, hostname, platform, totalmem } from 'node:os';
import type { HostFacts, Resources } from '../../shared/link/messages.js';

/** Facts about this host for the hello. The runtime is plain processes under the Agent's supervision. */
export function hostFacts(): HostFacts {
  return { hostname: hostname(), os: platform(), arch: arch(), runtimeName: 'process', runtimeVersion: process.version };
}

/** Size of the file system holding `dir`. */
export async function diskSize(dir: string): Promise<{ totalBytes: number; usedBytes: number; availableBytes: number }> {
  const s = await statfs(dir);
  return { totalBytes: s.blocks * s.bsize, usedBytes: (s.blocks - s.bfree) * s.bsize, availableBytes: s.bavail * s.bsize };
}

/** What servers on this Node may reserve: every core, all memory and the data dir's file system, unless overridden. */
export async function allocatable(dataDir: string, overrides: Partial<Resources>): Promise<Resources> {
  return {
    cpuMillis: overrides.cpuMillis ?? availableParallelism() * 1000,
    memoryBytes: overrides.memoryBytes ?? totalmem(),
    diskBytes: overrides.diskBytes ?? (await diskSize(dataDir)).totalBytes,
  };
}
