/**
 * simcraft's network hooks for containment tests: from inside the game, whether an address can be
 * reached and whether a port can be bound. Lines carry `[Debug] ...` like the other hooks.
 */
import { createServer, connect as tcpConnect, type Server } from 'node:net';
import type { ConsoleLog } from './console-log.js';

/** A connect that neither succeeds nor fails within this long is reported as ETIMEDOUT. */
export const connectDeadlineMs = 3000;

/** Kept for the process's life: a bound port stays bound. */
const bound: Server[] = [];

const debug = (log: ConsoleLog, message: string) => log.info(`[Debug] ${message}`);

/** A TCP port: a whole number 1..65535; undefined for anything else. */
export function parsePort(raw: string | undefined): number | undefined {
  const n = raw !== undefined && /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  return n >= 1 && n <= 65535 ? n : undefined;
}

export function connect(host: string, port: number, log: ConsoleLog): Promise<void> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host, port });
    const done = (outcome: string) => {
      clearTimeout(deadline);
      socket.destroy();
      debug(log, `connect ${host}:${port}: ${outcome}`);
      resolve();
    };
    const deadline = setTimeout(() => done('error ETIMEDOUT'), connectDeadlineMs);
    socket.once('connect', () => done('ok'));
    socket.once('error', (error: NodeJS.ErrnoException) => done(`error ${error.code ?? 'EUNKNOWN'}`));
  });
}

export function bind(port: number, log: ConsoleLog): Promise<void> {
  return new Promise((resolve) => {
    const server = createServer((socket) => {
      // A client that hangs up at once (the connect hook does) is no failure of the game.
      socket.on('error', () => undefined);
      socket.end('bound by a test hook\n');
    });
    server.once('error', (error: NodeJS.ErrnoException) => {
      debug(log, `bind ${port}: error ${error.code ?? 'EUNKNOWN'}`);
      resolve();
    });
    server.listen(port, '0.0.0.0', () => {
      bound.push(server);
      debug(log, `bind ${port}: ok`);
      resolve();
    });
  });
}

export const netHelp = [
  '/bind <port>: Listens on 0.0.0.0:<port> and keeps it (a test hook)',
  '/connect <host> <port>: Opens a TCP connection and tells whether it worked (a test hook)',
];

/** Runs a network hook; false when `verb` is not one. */
export function netCommand(verb: string, words: string[], log: ConsoleLog): boolean {
  switch (verb) {
    case 'connect': {
      const port = words.length === 2 ? parsePort(words[1]) : undefined;
      if (port === undefined) debug(log, 'usage: connect <host> <port>');
      else void connect(words[0], port, log);
      return true;
    }
    case 'bind': {
      const port = words.length === 1 ? parsePort(words[0]) : undefined;
      if (port === undefined) debug(log, 'usage: bind <port>');
      else void bind(port, log);
      return true;
    }
    default:
      return false;
  }
}
