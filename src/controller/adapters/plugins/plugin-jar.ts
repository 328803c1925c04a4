import yazl from 'yazl';

/** A small but valid plugin jar: a descriptor and a main class stub, as a real build would produce. */
export interface PluginJarSpec {
  name: string;
  version: string;
  /** Which descriptor to write; Paper reads `paper-plugin.yml` first, then `plugin.yml`. */
  descriptor?: 'plugin.yml' | 'paper-plugin.yml';
  main?: string;
  description?: string;
  /** Plugin names the descriptor lists under `depend`. */
  depend?: string[];
}

/** Fixed timestamps keep a jar's bytes (and so its sha256) the same on every build. */
const epoch = new Date('2024-01-01T00:00:00Z');

export function pluginDescriptorYaml(spec: PluginJarSpec): string {
  const main = spec.main ?? `dev.cairn.sample.${spec.name.replace(/[^A-Za-z0-9]/g, '')}`;
  const lines = [`name: ${spec.name}`, `version: '${spec.version}'`, `main: ${main}`, `api-version: '1.20'`];
  if (spec.description) lines.push(`description: ${JSON.stringify(spec.description)}`);
  if (spec.depend?.length) lines.push(`depend: [${spec.depend.join(', ')}]`);
  return lines.join('\n') + '\n';
}

/** Builds the jar from named entries (tests build malformed ones this way too). */
export function zipEntries(entries: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(entries)) {
    zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8'), name, { mtime: epoch, mode: 0o644, compress: true });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.once('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.once('error', reject);
  });
}

export function buildPluginJar(spec: PluginJarSpec): Promise<Buffer> {
  const main = spec.main ?? `dev.cairn.sample.${spec.name.replace(/[^A-Za-z0-9]/g, '')}`;
  return zipEntries({
    'META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\r\nCreated-By: Cairn sample catalog\r\n\r\n',
    [spec.descriptor ?? 'plugin.yml']: pluginDescriptorYaml({ ...spec, main }),
    // Not a real class file: nothing in Cairn loads it, but it makes the jar look like a build output.
    [`${main.replaceAll('.', '/')}.class`]: Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 65]),
  });
}
