import { readFile } from 'node:fs/promises';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import type { AgentConfig } from '../config.js';

/**
 * The link's credentials: plaintext without `--controller-ca`; otherwise TLS that trusts only that
 * CA (not the system's), with the certificate checked against `--controller-tls-name` when given.
 */
export async function linkCredentials(config: AgentConfig): Promise<grpc.ChannelCredentials> {
  if (!config.controllerCa) return grpc.credentials.createInsecure();
  const ca = await readFile(config.controllerCa);
  const name = config.controllerTlsName;
  return grpc.credentials.createSsl(ca, null, null, name ? { checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(name, cert) } : {});
}

/** Handshake failures, as Node's TLS words them in a gRPC error's details. */
const untrusted = /certificate|self[- ]signed|unable to (get|verify)|Hostname\/IP does not match|altnames|CERT_|ERR_TLS/i;
const notTls = /wrong version number|packet length too long|SSL routines/i;

/**
 * A clear sentence for an error that is a TLS problem, so the log says what to fix instead of a
 * bare UNAVAILABLE; undefined for any other error.
 */
export function tlsProblem(details: string, config: Pick<AgentConfig, 'controllerCa' | 'controller'>): string | undefined {
  if (config.controllerCa && untrusted.test(details)) {
    const cause = /Last error: (?:Error: )?(.*?)(?:\. Resolution note:.*)?$/.exec(details)?.[1] ?? details;
    return `the Controller's TLS certificate is not trusted (${cause}): --controller-ca must be the CA that signed the Controller's --tls-cert, and the certificate must name the host of --controller (or give --controller-tls-name)`;
  }
  if (config.controllerCa && notTls.test(details)) return `the Controller at ${config.controller} does not speak TLS: drop --controller-ca, or start the Controller with --tls-cert and --tls-key`;
  return undefined;
}
