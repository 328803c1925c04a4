/**
 * Console lines in the shape Paper and Velocity print: `[HH:MM:SS LEVEL]: message`. One write per
 * line, so a reader of the pipe never sees half a line (pipe writes are synchronous on Linux).
 */
export type LogLevel = 'INFO' | 'WARN' | 'ERROR';

const two = (n: number) => String(n).padStart(2, '0');

export function consoleLine(level: LogLevel, message: string, at: Date = new Date()): string {
  return `[${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())} ${level}]: ${message}`;
}

export interface ConsoleLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function stdoutLog(out: NodeJS.WritableStream = process.stdout): ConsoleLog {
  const write = (level: LogLevel, message: string) => {
    out.write(consoleLine(level, message) + '\n');
  };
  return {
    info: (m) => write('INFO', m),
    warn: (m) => write('WARN', m),
    error: (m) => write('ERROR', m),
  };
}
