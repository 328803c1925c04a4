import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { DomainError } from '../core/errors.js';
import { problemBody, statusOf } from './problem.js';

/** Node's limit on the request line and headers together (its default `maxHeaderSize`). */
const headerLimitKiB = 16;

function problemFor(error: NodeJS.ErrnoException): DomainError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return new DomainError('headers_too_large', `The request line and headers together are larger than ${headerLimitKiB} KiB.`);
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new DomainError('request_timeout', 'The request line and headers did not arrive in time.');
  return new DomainError('invalid_request', 'The request is not valid HTTP.');
}

/**
 * Requests Node's parser refuses before any route sees them (a 100 KB URL, broken framing) are
 * answered as problems too, instead of Node's bare status line; the connection then closes, as
 * what follows on it cannot be trusted.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const problem = problemFor(error);
    const status = statusOf(problem);
    const body = JSON.stringify(problemBody(problem));
    socket.end([
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`, 'Content-Type: application/problem+json',
      `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close', '', body,
    ].join('\r\n'));
  });
}
