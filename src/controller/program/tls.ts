import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';
import type { ControllerConfig } from './config.js';

/** The Controller's certificate and key, read once at start and served on both the HTTP port and the Agent link. */
export interface ControllerTls {
  cert: Buffer;
  key: Buffer;
  /** The file the local Agent verifies the link with: `--tls-ca`, else the certificate itself. */
  caFile: string;
  /** The certificate's end of validity, for the start log. */
  validTo: string;
  /** The names the certificate is good for (its subjectAltName), for the start log. */
  names: string;
}

/** Reads and checks `--tls-cert`/`--tls-key`: a key that does not belong to the certificate stops the start here, not at the first handshake. */
export async function loadControllerTls(config: ControllerConfig): Promise<ControllerTls | undefined> {
  if (!config.tlsCert || !config.tlsKey) return undefined;
  const read = async (flag: string, file: string) => {
    try {
      return await readFile(file);
    } catch (e) {
      throw new Error(`--${flag} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e });
    }
  };
  const cert = await read('tls-cert', config.tlsCert);
  const key = await read('tls-key', config.tlsKey);
  let x509: X509Certificate;
  try {
    createSecureContext({ cert, key });
    x509 = new X509Certificate(cert);
  } catch (e) {
    throw new Error(`--tls-cert ${config.tlsCert} with --tls-key ${config.tlsKey}: ${(e as Error).message}`, { cause: e });
  }
  return { cert, key, caFile: config.tlsCa ?? config.tlsCert, validTo: x509.validTo, names: x509.subjectAltName ?? x509.subject };
}

/**
 * The name the local Agent checks the certificate against when the address it dials (loopback,
 * usually) is not one the certificate names: its first DNS name (a wildcard's with `cairn.` in
 * front), else its first IP address. Undefined when the dialled host is covered.
 */
export function localAgentTlsName(cert: Buffer, dialHost: string): string | undefined {
  const x509 = new X509Certificate(cert);
  if (isIP(dialHost) ? x509.checkIP(dialHost) : x509.checkHost(dialHost)) return undefined;
  const entries = (x509.subjectAltName ?? '').split(/,\s*/);
  const dns = entries.find((e) => e.startsWith('DNS:'))?.slice(4);
  if (dns) return dns.replace(/^\*\./, 'cairn.');
  return entries.find((e) => e.startsWith('IP Address:'))?.slice(11);
}
