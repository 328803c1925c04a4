import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { ApiClient, sessionCookieFrom } from '../../test/support/http.js';

export type ApiCall = <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>;

/**
 * A bench's first minute with a Controller it started: the listening line, first-run setup as
 * the administrator, and a JSON caller with that session (any non-2xx answer throws with its body).
 */
export async function adminSession(stdout: Readable, dataDir: string): Promise<{ httpPort: number; grpcPort: number; api: string; cookie: string; call: ApiCall }> {
  const [line] = (await once(createInterface({ input: stdout }), 'line')) as [string];
  const { httpPort, grpcPort } = JSON.parse(line) as { httpPort: number; grpcPort: number };
  const api = `http://127.0.0.1:${httpPort}/api/v1`;
  const setupCode = (await readFile(join(dataDir, 'setup-code'), 'utf8')).trim();
  const setup = await fetch(`${api}/setup`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ setupCode, username: 'bench', email: 'bench@example.com', displayName: 'Bench', password: 'bench-password-1', network: { name: 'b', description: '', address: 'localhost', port: 25565 } }),
  });
  const cookie = /(__Host-cairn_session=[^;]+)/.exec(setup.headers.get('set-cookie') ?? '')![1];
  const call: ApiCall = async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${api}${path}`, { method, headers: { cookie, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return { httpPort, grpcPort, api, cookie, call };
}

/** First-run setup through the test support's API client: the administrator's client and its session cookie. */
export async function adminClient(httpPort: number, dataDir: string): Promise<{ admin: ApiClient; cookie: string }> {
  const anonymous = new ApiClient(`http://127.0.0.1:${httpPort}`);
  const setupCode = (await readFile(join(dataDir, 'setup-code'), 'utf8')).trim();
  const setup = await anonymous.post('/setup', {
    setupCode, username: 'bench', email: 'bench@example.com', displayName: 'Bench', password: 'bench-password-1',
    network: { name: 'b', description: '', address: 'localhost', port: 25565 },
  });
  const cookie = sessionCookieFrom(setup);
  return { admin: anonymous.withCookie(cookie), cookie };
}
