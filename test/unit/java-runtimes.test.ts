import { expect } from 'chai';
import { chmod, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAgentConfig } from '../../src/agent/config.js';
import { chooseJava, runtimeMissingReason, runtimeRefusal, usesJava } from '../../src/agent/java/java-choice.js';
import { discoverJava } from '../../src/agent/java/java-discovery.js';
import { parseJavaVersion, type JavaRuntime } from '../../src/agent/java/java-version.js';
import { silentLogger, type Logger } from '../../src/shared/logger.js';
import type { Template } from '../../src/shared/templates.js';
import { parseTemplateJson } from '../../src/shared/template-check.js';
import { tempDirPerTest } from '../support/temp-dir.js';

/** The first lines launchers really print for `-version` (to stderr). */
const banners = {
  openjdk8: 'openjdk version "1.8.0_392"\nOpenJDK Runtime Environment (build 1.8.0_392-8u392-ga-1~22.04-b08)\nOpenJDK 64-Bit Server VM (build 25.392-b08, mixed mode)',
  oracle8: 'java version "1.8.0_202"\nJava(TM) SE Runtime Environment (build 1.8.0_202-b08)\nJava HotSpot(TM) 64-Bit Server VM (build 25.202-b08, mixed mode)',
  openjdk17: 'openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime Environment (build 17.0.15+6-Ubuntu-0ubuntu122.04)\nOpenJDK 64-Bit Server VM (build 17.0.15+6-Ubuntu-0ubuntu122.04, mixed mode, sharing)',
  openjdk21: 'openjdk version "21.0.5" 2024-10-15 LTS\nOpenJDK Runtime Environment Temurin-21.0.5+11 (build 21.0.5+11-LTS)\nOpenJDK 64-Bit Server VM Temurin-21.0.5+11 (build 21.0.5+11-LTS, mixed mode, sharing)',
  openjdk25: 'openjdk version "25" 2025-09-16\nOpenJDK Runtime Environment (build 25+36-3489)\nOpenJDK 64-Bit Server VM (build 25+36-3489, mixed mode, sharing)',
};

describe('Java runtimes: the version a launcher prints', () => {
  it('reads the major of every real format, 1.x numbering and a bare major included', () => {
    expect(parseJavaVersion(banners.openjdk8)).to.deep.equal({ version: '1.8.0_392', major: 8 });
    expect(parseJavaVersion(banners.oracle8)).to.deep.equal({ version: '1.8.0_202', major: 8 });
    expect(parseJavaVersion(banners.openjdk17)).to.deep.equal({ version: '17.0.15', major: 17 });
    expect(parseJavaVersion(banners.openjdk21)).to.deep.equal({ version: '21.0.5', major: 21 });
    expect(parseJavaVersion(banners.openjdk25)).to.deep.equal({ version: '25', major: 25 });
  });

  it('finds the version line after a JVM notice, and refuses what is not a Java\'s', () => {
    expect(parseJavaVersion(`Picked up JAVA_TOOL_OPTIONS: -Xss2m\n${banners.openjdk17}`)?.major).to.equal(17);
    expect(parseJavaVersion('python 3.12.1')).to.equal(null);
    expect(parseJavaVersion('openjdk version "abc"')).to.equal(null);
    expect(parseJavaVersion('')).to.equal(null);
  });
});

/** A logger that keeps the warnings (what an operator sees). */
function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger = { warn: (_fields: unknown, message: string) => warnings.push(message), info: () => undefined, debug: () => undefined } as unknown as Logger;
  return { logger, warnings };
}

describe('Java runtimes: discovery', () => {
  const dir = tempDirPerTest('cairn-java-');

  /** A fake launcher: a shell script that prints `stderr` to stderr and ends as `tail` says. */
  async function launcher(path: string, stderr: string, tail = 'exit 0'): Promise<string> {
    await mkdir(join(path, '..'), { recursive: true });
    const lines = stderr.split('\n').map((line) => `echo '${line}' >&2`);
    await writeFile(path, `#!/bin/sh\n${lines.join('\n')}\n${tail}\n`);
    await chmod(path, 0o755);
    return path;
  }

  it('finds --java launchers and JAVA_HOME-style directories, then /usr/lib/jvm, once per real path, skipping broken ones with a warning', async () => {
    const j17 = await launcher(join(dir(), 'jdk17', 'bin', 'java'), banners.openjdk17);
    await launcher(join(dir(), 'jdk21', 'bin', 'java'), banners.openjdk21);
    await symlink(j17, join(dir(), 'java17-link'));
    const failing = await launcher(join(dir(), 'failing'), 'Error: could not find libjava.so', 'exit 1');
    const hanging = await launcher(join(dir(), 'hanging'), '', 'sleep 30');
    const other = await launcher(join(dir(), 'other'), 'Python 3.12.1');
    const jvm = join(dir(), 'jvm');
    await launcher(join(jvm, 'java-8-openjdk', 'bin', 'java'), banners.openjdk8);
    await mkdir(join(jvm, 'openjdk-17'));
    const { logger, warnings } = recordingLogger();
    const started = Date.now();
    const found = await discoverJava({
      given: [j17, join(dir(), 'jdk21'), join(dir(), 'java17-link'), failing, hanging, other, join(dir(), 'missing')],
      jvmDir: jvm, onPath: false, deadlineMs: 500,
    }, logger);
    expect(found).to.deep.equal([
      { name: 'java', version: '17.0.15', major: 17, path: j17 },
      { name: 'java', version: '21.0.5', major: 21, path: join(dir(), 'jdk21', 'bin', 'java') },
      { name: 'java', version: '1.8.0_392', major: 8, path: join(jvm, 'java-8-openjdk', 'bin', 'java') },
    ]);
    // The hanging launcher cost its deadline, not its 30 s.
    expect(Date.now() - started).to.be.below(10_000);
    expect(warnings).to.have.length(4);
    expect(warnings.find((w) => w.startsWith(failing))).to.include('exit status 1');
    expect(warnings.find((w) => w.startsWith(hanging))).to.include('no answer within 500 ms');
    expect(warnings.find((w) => w.startsWith(other))).to.include('printed no Java version');
    expect(warnings.find((w) => w.includes('missing'))).to.include('not found');
  });

  it('takes JAVA_HOME after the --java launchers', async () => {
    const home = join(dir(), 'home25');
    await launcher(join(home, 'bin', 'java'), banners.openjdk25);
    const j8 = await launcher(join(dir(), 'oracle8', 'bin', 'java'), banners.oracle8);
    const found = await discoverJava({ given: [j8], javaHome: home, jvmDir: join(dir(), 'none'), onPath: false }, silentLogger);
    expect(found.map((r) => r.major)).to.deep.equal([8, 25]);
  });

  it('asks a launcher once per process while its file stays the same, again once it changes or after a failure', async () => {
    const calls = join(dir(), 'calls');
    const path = join(dir(), 'jdk17', 'bin', 'java');
    const counted = (stderr: string, tail = 'exit 0') => launcher(path, stderr, `echo x >> '${calls}'\n${tail}`);
    const asked = async () => (await readFile(calls, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
    const search = { given: [path], jvmDir: join(dir(), 'none'), onPath: false };
    await counted(banners.openjdk17);
    const together = await Promise.all([discoverJava(search, silentLogger), discoverJava(search, silentLogger)]);
    expect(together.map((found) => found.map((r) => r.major))).to.deep.equal([[17], [17]]);
    expect((await discoverJava(search, silentLogger)).map((r) => r.major)).to.deep.equal([17]);
    expect(await asked()).to.equal(1);
    await counted(banners.openjdk21);
    expect((await discoverJava(search, silentLogger)).map((r) => r.major)).to.deep.equal([21]);
    expect(await asked()).to.equal(2);
    await counted(banners.openjdk25, 'exit 1');
    expect(await discoverJava(search, silentLogger)).to.deep.equal([]);
    expect(await discoverJava(search, silentLogger)).to.deep.equal([]);
    expect(await asked()).to.equal(4);
  });

  it('finds the JDKs installed on this machine', async function () {
    const installed = await readdir('/usr/lib/jvm').catch(() => [] as string[]);
    // Only a host with JDKs in /usr/lib/jvm can show them (this project's CI has openjdk 17 and temurin 25).
    if (installed.length === 0) this.skip();
    const found = await discoverJava({ given: [], onPath: false }, silentLogger);
    expect(found.map((r) => r.major)).to.include.members([17, 25]);
    expect(new Set(found.map((r) => r.path)).size).to.equal(found.length);
  });
});

describe('Java runtimes: the choice at start', () => {
  const java = (major: number, path = `/jdk${major}/bin/java`): JavaRuntime => ({ name: 'java', version: String(major), major, path });
  const installed = [java(21), java(8), java(17), java(25)];

  it('runs the lowest installed major at least the minimum', () => {
    expect(chooseJava(installed, 17)?.major).to.equal(17);
    expect(chooseJava(installed, 18)?.major).to.equal(21);
    expect(chooseJava(installed, 8)?.major).to.equal(8);
    expect(chooseJava(installed, 26)).to.equal(undefined);
    expect(chooseJava([], 8)).to.equal(undefined);
  });

  it('without a minimum runs the newest; among one major, the first found', () => {
    expect(chooseJava(installed, undefined)?.major).to.equal(25);
    expect(chooseJava([java(17, '/given/java'), java(17, '/usr/lib/jvm/17/bin/java')], 17)?.path).to.equal('/given/java');
  });

  describe('which templates are refused', () => {
    const templates = new Map<string, Template>();
    before(async () => {
      for (const id of ['paper', 'simcraft', 'simproxy']) templates.set(id, parseTemplateJson(await readFile(join('templates', `${id}.json`), 'utf8')));
    });

    it('a template that runs {java} without a fitting Java gets RUNTIME_MISSING naming the need and what the Node has', () => {
      const paper = { ...templates.get('paper')!, java: { minimum: 21 } };
      expect(usesJava(paper)).to.equal(true);
      const refusal = runtimeRefusal('s1', paper, [java(17), java(8)]);
      expect(refusal).to.include({ id: 's1:runtime-missing', reason: runtimeMissingReason });
      expect(refusal?.message).to.equal('The server needs Java 21 or newer; this Node has Java 8, 17 (cairn-agent --java PATH adds one). The game was not started.');
      expect(runtimeRefusal('s1', paper, [], refusal)?.message).to.include('this Node has no Java');
      expect(runtimeRefusal('s1', paper, [java(25)])).to.equal(undefined);
    });

    it('keeps the refusal\'s since while its words stay the same', () => {
      const paper = { ...templates.get('paper')!, java: { minimum: 21 } };
      const earlier = { ...runtimeRefusal('s1', paper, [java(17)])!, since: '2030-01-01T00:00:00.000Z' };
      expect(runtimeRefusal('s1', paper, [java(17)], earlier)?.since).to.equal('2030-01-01T00:00:00.000Z');
    });

    it('never refuses simcraft or simproxy, which run {node}', () => {
      for (const id of ['simcraft', 'simproxy']) {
        expect(usesJava(templates.get(id)!)).to.equal(false);
        expect(runtimeRefusal('s1', { ...templates.get(id)!, java: { minimum: 99 } }, [])).to.equal(undefined);
      }
    });
  });
});

describe('Java runtimes: --java', () => {
  it('is repeatable, and CAIRN_JAVA takes comma-separated paths', () => {
    const base = ['--controller', 'c:1', '--data-dir', '/d'];
    expect(parseAgentConfig([...base, '--java', '/opt/jdk17', '--java', '/opt/jdk21/bin/java'], {}).javas).to.deep.equal(['/opt/jdk17', '/opt/jdk21/bin/java']);
    expect(parseAgentConfig(base, { CAIRN_JAVA: '/opt/a, /opt/b' }).javas).to.deep.equal(['/opt/a', '/opt/b']);
    expect(parseAgentConfig(base, {}).javas).to.deep.equal([]);
  });
});
