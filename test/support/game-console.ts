import { expect } from 'chai';
import type { ConsoleStreamEvent } from './api-types.js';
import type { Fleet } from './fleet.js';
import { openSse, type SseStream } from './sse.js';
import { waitFor } from './wait-for.js';

type FleetApi = Pick<Fleet, 't' | 'admin'>;

/**
 * The server's console from now on. Right after an Agent restart the server may still be reported
 * as the new Agent adopts it: 409 until it is RUNNING again, so that is tried again.
 */
export function openConsole(f: FleetApi, id: string): Promise<SseStream<ConsoleStreamEvent>> {
  return waitFor(async () => {
    const opened = await openSse<ConsoleStreamEvent>(`${f.t.baseUrl}/api/v1/servers/${id}/console?tail=0`, { cookie: f.admin.auth.cookie! });
    if (opened.status === 200) return opened;
    expect(opened.status, JSON.stringify(opened.problem)).to.equal(409);
    return undefined;
  }, { what: `the console of ${id}` });
}

/** Types a command into the server's console and waits for the line that answers it. */
export async function askConsole(f: FleetApi, id: string, command: string, answer: RegExp, timeoutMs = 20_000): Promise<string> {
  const stream = await openConsole(f, id);
  try {
    const sent = await f.admin.post(`/servers/${id}/console/commands`, { command });
    expect(sent.status, sent.text).to.equal(200);
    const line = await stream.next((e) => e.event === 'line' && answer.test((e.data as { text: string }).text), timeoutMs);
    return (line.data as { text: string }).text;
  } finally {
    stream.close();
  }
}
