import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** Where `cairn login` keeps the URL and the API token it created (mode 0600). */
export const credentialsPath = () =>
  process.env.CAIRN_CREDENTIALS || join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'cairn', 'credentials.json');

export interface Credentials {
  url: string;
  token: string;
  tokenId?: string;
  username?: string;
  /** The `--ca` file the login trusted, for the commands after it. */
  ca?: string;
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
