// With its extension: the unit tests type-check this file under Node's module resolution.
import type { ServerDetail, TemplateVersion } from '../../../api/types.js';
import { loaderText } from './loaders.js';

/**
 * `1.21.4 (Java 21)`; a version without a Java need (simcraft's) is only its name; a modpack's
 * version its name for people, with its game and loader: `1.2.0 (Minecraft 1.21.4, Fabric 0.16.10)`.
 */
export function versionLabel(v: Pick<TemplateVersion, 'version' | 'java' | 'name' | 'game' | 'loader'>): string {
  if (v.name !== undefined) {
    const about = [v.game ? `Minecraft ${v.game}` : '', v.loader ? loaderText(v.loader) : ''].filter(Boolean).join(', ');
    return about ? `${v.name} (${about})` : v.name;
  }
  return v.java ? `${v.version} (Java ${v.java.minimum})` : v.version;
}

/**
 * What the template offers beyond the server's software, as one sentence, or undefined when it
 * runs the newest. `versions` is newest first, so any version listed before the current one is
 * newer; for the current version, a `latestBuild` other than the server's build is newer.
 */
export function newerSoftware(versions: readonly TemplateVersion[], software: ServerDetail['software']): string | undefined {
  const index = versions.findIndex((v) => v.version === software.version);
  if (index > 0) return `Version ${versions[0].name ?? versions[0].version} is available.`;
  const current = versions[index] as TemplateVersion | undefined;
  if (current?.latestBuild && software.build && current.latestBuild !== software.build) {
    return `Build ${current.latestBuild} of ${current.version} is available.`;
  }
  return undefined;
}

/** What the Software card remembers of an update it started, to tell its end. */
export interface UpdateStarted {
  version: string;
  /** The server's generation before: a successful update makes a new one. */
  generation: number;
  /** The ids of the UPDATE_FAILED conditions the server had already: a new one is this update's failure. */
  failuresBefore: string[];
}

/** The parts of a server's detail that hold its conditions (the Controller's and the Agent's). */
type WithConditions = Pick<ServerDetail, 'conditions'> & { status: Pick<ServerDetail['status'], 'conditions'> };

const updateFailures = (server: WithConditions) =>
  [...server.conditions, ...server.status.conditions].filter((c) => c.reason === 'UPDATE_FAILED');

export const startedUpdate = (server: WithConditions & Pick<ServerDetail, 'generation'>, version: string): UpdateStarted =>
  ({ version, generation: server.generation, failuresBefore: updateFailures(server).map((c) => c.id) });

/**
 * How an update this page started ended: undefined while it runs (or before it began), else
 * `Updated to <version>` or the UPDATE_FAILED condition's message, which names the failed step.
 */
export function updateOutcome(server: WithConditions & Pick<ServerDetail, 'phase' | 'generation' | 'software'>, started: UpdateStarted): { ok: boolean; text: string } | undefined {
  if (server.phase !== 'READY') return undefined;
  const failure = updateFailures(server).find((c) => !started.failuresBefore.includes(c.id));
  if (failure) return { ok: false, text: `The update failed: ${failure.message}` };
  if (server.software.version !== started.version || server.generation <= started.generation) return undefined;
  return { ok: true, text: `Updated to ${started.version}${server.software.build ? ` (build ${server.software.build})` : ''}.` };
}
