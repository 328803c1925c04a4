import type { AgentCondition } from '../reconciler/start-refusal.js';
import type { Template } from '../../shared/templates.js';
import type { JavaRuntime } from './java-version.js';

export const runtimeMissingReason = 'RUNTIME_MISSING';

/** Whether the template's run command starts `{java}` (simcraft and simproxy run `{node}` and never need one). */
export function usesJava(template: Template): boolean {
  const { command, args, env } = template.run;
  return [command, ...args, ...Object.values(env ?? {})].some((part) => part.includes('{java}'));
}

/**
 * The Java a start runs on: the lowest major at least `minimum`, so a game gets the release it was
 * built for rather than a newer one it may not have been tried on. Without a minimum, the newest
 * installed. Among launchers of one major, the first found (a `--java` before the system's).
 */
export function chooseJava(runtimes: readonly JavaRuntime[], minimum: number | undefined): JavaRuntime | undefined {
  let best: JavaRuntime | undefined;
  for (const r of runtimes) {
    if (minimum !== undefined && r.major < minimum) continue;
    const better = best === undefined || (minimum === undefined ? r.major > best.major : r.major < best.major);
    if (better) best = r;
  }
  return best;
}

export function runtimeMissingMessage(minimum: number | undefined, runtimes: readonly JavaRuntime[]): string {
  const need = minimum === undefined ? 'a Java' : `Java ${minimum} or newer`;
  const has = runtimes.length ? `this Node has Java ${[...new Set(runtimes.map((r) => r.major))].sort((a, b) => a - b).join(', ')}` : 'this Node has no Java';
  return `The server needs ${need}; ${has} (cairn-agent --java PATH adds one). The game was not started.`;
}

/**
 * Why this template cannot start on this Node (condition RUNTIME_MISSING), or undefined when it
 * does not run `{java}` or a fitting Java is installed. `since` is kept from the last refusal of
 * the same words, so repeated desired states do not make the condition look new.
 */
export function runtimeRefusal(serverId: string, template: Template, runtimes: readonly JavaRuntime[], previous?: AgentCondition): AgentCondition | undefined {
  if (!usesJava(template)) return undefined;
  const minimum = template.java?.minimum;
  if (chooseJava(runtimes, minimum)) return undefined;
  const message = runtimeMissingMessage(minimum, runtimes);
  const since = previous?.message === message ? previous.since : new Date().toISOString();
  return { id: `${serverId}:runtime-missing`, reason: runtimeMissingReason, message, since };
}
