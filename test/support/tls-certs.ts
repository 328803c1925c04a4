import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Agent } from 'undici';

const run = promisify(execFile);

/** A CA of the test's own: its certificate file and PEM, and a dispatcher for fetch that trusts only it. */
export interface TestCa {
  name: string;
  certFile: string;
  keyFile: string;
  pem: Buffer;
  dispatcher: Agent;
}

/** A server certificate signed by a TestCa, with its key. */
export interface ServerCert {
  certFile: string;
  keyFile: string;
}

const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Makes a CA with openssl (the commands docs/operations.md shows operators). */
export async function makeCa(dir: string, name: string): Promise<TestCa> {
  const certFile = join(dir, `${name}.pem`);
  const keyFile = join(dir, `${name}.key`);
  await run('openssl', ['req', '-x509', ...ecKey, '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', `/CN=${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  const pem = await readFile(certFile);
  return { name, certFile, keyFile, pem, dispatcher: new Agent({ connect: { ca: pem } }) };
}

/** A server certificate for `altNames` (`DNS:localhost`, `IP:127.0.0.1`) signed by `ca`. */
export async function makeServerCert(dir: string, ca: TestCa, name: string, altNames: string[]): Promise<ServerCert> {
  const certFile = join(dir, `${name}.pem`);
  const keyFile = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  const ext = join(dir, `${name}.ext`);
  await run('openssl', ['req', '-new', ...ecKey, '-keyout', keyFile, '-out', csr, '-subj', `/CN=${name}`]);
  await writeFile(ext, `subjectAltName=${altNames.join(',')}\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n`);
  await run('openssl', ['x509', '-req', '-in', csr, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-CAcreateserial', '-out', certFile, '-days', '2', '-extfile', ext]);
  return { certFile, keyFile };
}
