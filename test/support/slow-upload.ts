import { request } from 'node:http';

/** A PUT whose body the test feeds piece by piece, to have an upload in flight at a chosen moment. */
export interface SlowUpload {
  write(data: Buffer): Promise<void>;
  end(): void;
  /** The answer's status, or the error that ended the request (a destroyed connection). */
  outcome: Promise<{ status: number } | { error: string }>;
}

export function slowUpload(url: string, headers: Record<string, string>): SlowUpload {
  const req = request(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream', ...headers } });
  const outcome = new Promise<{ status: number } | { error: string }>((resolve) => {
    req.once('response', (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0 }));
      res.once('error', (e) => resolve({ error: e.message }));
    });
    req.once('error', (e) => resolve({ error: e.message }));
  });
  req.flushHeaders();
  return {
    write: (data) => new Promise((resolve, reject) => req.write(data, (err) => (err ? reject(err) : resolve()))),
    end: () => req.end(),
    outcome,
  };
}
