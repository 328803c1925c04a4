import pMap from 'p-map';
import type { Schedule, ServerItem } from './api-types.js';
import type { CliClient } from './client.js';
import { ApiError, notFound } from './errors.js';
import { ambiguity, isId, kinds, resolve, resolveServer } from './resolve.js';

/** Which servers' schedules: one server (`--server`, narrowed by `--team`), a team's, or every server the caller sees. */
export interface ScheduleScope {
  server?: string;
  team?: string;
}

/** Servers whose schedules are read at once; the API has no fleet-wide list, so `get schedules` asks each server. */
const concurrency = 8;

/** A server deleted since the list was read has no schedules left to show. */
function goneServer(e: unknown): Schedule[] {
  if (e instanceof ApiError && e.status === 404) return [];
  throw e;
}

/** The servers in `scope` and their schedules, server by server in the list's order. */
async function schedulesIn(client: CliClient, scope: ScheduleScope): Promise<{ servers: ServerItem[]; schedules: Schedule[] }> {
  let servers: ServerItem[];
  if (scope.server !== undefined) {
    servers = [await resolveServer(client, scope.server, scope.team)];
  } else {
    const teamId = scope.team === undefined ? undefined : (await resolve(client, kinds.team, scope.team)).id;
    servers = await client.all<ServerItem>('/servers', { teamId });
  }
  const perServer = await pMap(servers, (s) => client.all<Schedule>(`/servers/${s.id}/schedules`).catch(goneServer), { concurrency });
  return { servers, schedules: perServer.flat() };
}

export const listSchedules = async (client: CliClient, scope: ScheduleScope) => (await schedulesIn(client, scope)).schedules;

/**
 * The one schedule `ref` names: an id directly; a name (unique within its server) among the
 * schedules in `scope`. A name that several servers' schedules have is refused, listing each
 * with its server, so the caller picks one by id or with `--server`.
 */
export async function resolveSchedule(client: CliClient, ref: string, scope: ScheduleScope): Promise<Schedule> {
  if (isId(ref)) {
    try {
      return await client.get<Schedule>(`/schedules/${ref}`);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 404) throw e;
    }
  }
  const { servers, schedules } = await schedulesIn(client, scope);
  const names = new Map(servers.map((s) => [s.id, s.name]));
  const matches = schedules.filter((s) => s.name === ref);
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) throw notFound('schedule', ref);
  throw ambiguity({ word: 'schedule', plural: 'schedules' }, ref, matches.map((s) => `${s.id}  server ${names.get(s.serverId) ?? s.serverId}`), scope.server === undefined ? '--server' : undefined);
}
