import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** Where `cairn login` keeps the URL and the API token it created (mode 0600). */
export const credentialsPath = () =>
  process.env.CAIRN_CREDENTIALS ?? join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'cairn', 'credentials.json');

export interface Credentials {
  url: string;
  token: string;
  tokenId?: string;
}

export async function loadCredentials(): Promise<Credentials | undefined> {
  try {
    return JSON.parse(await readFile(credentialsPath(), 'utf8')) as Credentials;
  } catch {
    return undefined;
  }
}

export async function saveCredentials(credentials: Credentials): Promise<void> {
  const path = credentialsPath();
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
}

export const forgetCredentials = () => rm(credentialsPath(), { force: true });

/** An API problem, printed as `code: detail` and turned into exit status 1. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, detail: string) {
    super(`${code}: ${detail}`);
  }
}

export class CliClient {
  constructor(readonly url: string, private readonly auth: { token?: string; cookie?: string }) {}

  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<{ body: T; headers: Headers }> {
    const headers: Record<string, string> = {};
    if (this.auth.token) headers.authorization = `Bearer ${this.auth.token}`;
    if (this.auth.cookie) headers.cookie = this.auth.cookie;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.url.replace(/\/$/, '')}/api/v1${path}`, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const parsed: unknown = text.length > 0 && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
    if (!res.ok) {
      const problem = parsed as { code?: string; detail?: string; title?: string };
      throw new ApiError(res.status, problem.code ?? String(res.status), problem.detail ?? problem.title ?? text);
    }
    return { body: parsed as T, headers: res.headers };
  }

  /** Follows nextCursor until the list ends. */
  async all<T = unknown>(path: string): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const page = await this.call<{ items: T[]; nextCursor?: string }>('GET', `${path}${sep}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      items.push(...page.body.items);
      cursor = page.body.nextCursor;
    } while (cursor);
    return items;
  }
}
