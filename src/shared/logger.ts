import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export const logFormats = ['text', 'json'] as const;
export type LogFormat = (typeof logFormats)[number];

/**
 * `--log-format` (or `CAIRN_LOG_FORMAT`): JSON for files, journald and tools; text for a person at
 * a terminal, the default when stderr (where logs go) is one. Read before the rest of the command
 * line, so the first lines already have their format; a wrong value is the flag parser's to refuse.
 */
export function logFormatOf(argv: readonly string[], env: NodeJS.ProcessEnv, stderrIsTty: boolean): LogFormat {
  const at = argv.findIndex((a) => a === '--log-format' || a.startsWith('--log-format='));
  const given = at < 0 ? env.CAIRN_LOG_FORMAT : argv[at].includes('=') ? argv[at].slice(argv[at].indexOf('=') + 1) : argv[at + 1];
  return given === 'text' || given === 'json' ? given : stderrIsTty ? 'text' : 'json';
}

/**
 * Logs go to stderr: stdout is reserved for the machine-readable `{"event":"listening",...}`
 * line that tools and tests read.
 */
export function createLogger(name: string, level = process.env.CAIRN_LOG_LEVEL ?? 'info', format: LogFormat = logFormatOf(process.argv.slice(2), process.env, process.stderr.isTTY)): Logger {
  const options = {
    name,
    level,
    base: { service: name },
    redact: {
      paths: ['password', '*.password', 'token', '*.token', 'credential', '*.credential', 'headers.authorization', 'headers.cookie', 'secretAccessKey', '*.secretAccessKey'],
      censor: '[redacted]',
    },
  };
  if (format === 'text') {
    return pino(options, pretty({ destination: 2, sync: false, colorize: process.stderr.isTTY, singleLine: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service,name' }));
  }
  return pino(options, pino.destination({ fd: 2, sync: false }));
}

export const silentLogger: Logger = pino({ level: 'silent' });
