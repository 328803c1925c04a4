import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs go to stderr: stdout is reserved for the machine-readable
 * `{"event":"listening",...}` line that tools and tests read.
 */
export function createLogger(name: string, level = process.env.CAIRN_LOG_LEVEL ?? 'info'): Logger {
  return pino(
    {
      name,
      level,
      base: { service: name },
      redact: {
        paths: ['password', '*.password', 'token', '*.token', 'credential', '*.credential', 'headers.authorization', 'headers.cookie'],
        censor: '[redacted]',
      },
    },
    pino.destination({ fd: 2, sync: false }),
  );
}

export const silentLogger: Logger = pino({ level: 'silent' });
