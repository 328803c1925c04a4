import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAgentConfig } from '../../src/agent/config.js';
import { parseControllerConfig } from '../../src/controller/program/config.js';
import { ProgramArgsError } from '../../src/shared/program-args.js';

/** `--config FILE` of cairn-controller and cairn-agent: YAML keyed by the long flags, below flags and variables. */
describe('--config: settings from a YAML file', () => {
  let dir: string;
  const file = async (name: string, text: string) => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-config-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('a controller file sets what flags set; relative paths resolve against the working directory', async () => {
    const path = await file('controller.yaml', [
      'data-dir: /var/lib/cairn', 'http-port: 9080', 'grpc-port: 9443', 'host: 0.0.0.0', 'catalog-sync-minutes: 0',
      'tls-cert: certs/controller.pem', 'tls-key: /etc/cairn/controller.key', 'local-agent: true', 'game-ports: 30000-30099',
    ].join('\n'));
    const config = parseControllerConfig(['--config', path], {});
    expect(config).to.deep.include({
      dataDir: '/var/lib/cairn', httpPort: 9080, grpcPort: 9443, host: '0.0.0.0', catalogSyncMinutes: 0,
      tlsCert: join(process.cwd(), 'certs/controller.pem'), tlsKey: '/etc/cairn/controller.key', localAgent: true,
      localAgentGamePorts: { first: 30000, last: 30099 },
    });
  });

  it('precedence: flag, then environment variable, then the file, then the default', async () => {
    const path = await file('precedence.yaml', 'http-port: 1111\ngrpc-port: 2222\nhost: 10.0.0.1\n');
    const config = parseControllerConfig(['--config', path, '--http-port', '3333'], { CAIRN_HTTP_PORT: '4444', CAIRN_GRPC_PORT: '5555' });
    expect(config).to.deep.include({ httpPort: 3333, grpcPort: 5555, host: '10.0.0.1', dataDir: join(process.cwd(), 'data') });
    expect(parseControllerConfig([], { CAIRN_CONTROLLER_CONFIG: path })).to.deep.include({ httpPort: 1111, grpcPort: 2222 });
    expect(parseControllerConfig(['--config', path], { CAIRN_CONTROLLER_CONFIG: '/nonexistent.yaml' }).httpPort).to.equal(1111);
  });

  it('an on/off setting: the flag turns it on, a variable other than 1 turns the file\'s true off', async () => {
    const path = await file('local.yaml', 'local-agent: true\n');
    expect(parseControllerConfig(['--config', path], {}).localAgent).to.equal(true);
    expect(parseControllerConfig(['--config', path], { CAIRN_LOCAL_AGENT: '0' }).localAgent).to.equal(false);
    expect(parseControllerConfig(['--local-agent'], {}).localAgent).to.equal(true);
    const off = await file('off.yaml', 'local-agent: false\n');
    expect(parseControllerConfig(['--config', off], {}).localAgent).to.equal(false);
  });

  it('an empty value or an empty file leaves settings at their defaults', async () => {
    expect(parseControllerConfig(['--config', await file('empty.yaml', '')], {}).httpPort).to.equal(8080);
    expect(parseControllerConfig(['--config', await file('blank.yaml', 'mongodb-uri:\nhost: ""\n')], {})).to.deep.include({ mongodbUri: undefined, host: '127.0.0.1' });
  });

  it('--store: MongoDB when a URI is given, embedded otherwise; the choice wins over a URI in the environment', () => {
    const uri = 'mongodb://127.0.0.1:1/cairn';
    expect(parseControllerConfig([], {}).mongodbUri).to.equal(undefined);
    expect(parseControllerConfig([], { MONGODB_URI: uri }).mongodbUri).to.equal(uri);
    expect(parseControllerConfig(['--store', 'mongodb'], { MONGODB_URI: uri }).mongodbUri).to.equal(uri);
    expect(parseControllerConfig(['--store', 'embedded'], { MONGODB_URI: uri }).mongodbUri).to.equal(undefined);
    expect(parseControllerConfig([], { CAIRN_STORE: 'mongodb', MONGODB_URI: uri }).mongodbUri).to.equal(uri);
    expect(() => parseControllerConfig(['--store', 'mongodb'], {})).to.throw('--store mongodb needs the database: give MONGODB_URI or --mongodb-uri');
    expect(() => parseControllerConfig(['--store', 'sqlite'], {})).to.throw('--store must be embedded or mongodb, got "sqlite"');
  });

  it('the file is validated like the flags: a bad value is refused naming the setting', async () => {
    const path = await file('bad-port.yaml', 'http-port: 70000\n');
    expect(() => parseControllerConfig(['--config', path], {})).to.throw('--http-port must be a port number 0..65535, got "70000"');
    const half = await file('half-tls.yaml', 'tls-cert: /etc/cairn/c.pem\n');
    expect(() => parseControllerConfig(['--config', half], {})).to.throw('--tls-cert and --tls-key go together');
  });

  const refusals: [string, string, RegExp][] = [
    ['unknown key', 'data-dir: /x\nhttp_port: 80\n', /^unknown key 'http_port' in the config file .*unknown-key\.yaml \(keys are the long flags without --, see --help\)$/],
    ['camelCase key', 'dataDir: /x\n', /^unknown key 'dataDir' in the config file/],
    ['nested config', 'config: other.yaml\n', /^unknown key 'config' in the config file/],
    ['list value', 'host: [a, b]\n', /^'host' in the config file .* must be a single value \(ADDR\)$/],
    ['on/off as text', 'local-agent: "yes"\n', /^'local-agent' in the config file .* must be true or false$/],
    ['not a mapping', '- data-dir\n', /must be a mapping of settings \(key: value\)$/],
    ['invalid YAML', 'host: [unclosed\n', /is not valid YAML: /],
    ['duplicate key', 'host: a\nhost: b\n', /is not valid YAML: .*unique/i],
  ];
  for (const [what, text, message] of refusals) {
    it(`refuses a file with ${what} (a usage error: exit 2)`, async () => {
      const path = await file(`${what.replace(/\W+/g, '-')}.yaml`, text);
      expect(() => parseControllerConfig(['--config', path], {})).to.throw(ProgramArgsError, message);
    });
  }

  it('a file that cannot be read is refused naming it', () => {
    expect(() => parseControllerConfig(['--config', join(dir, 'missing.yaml')], {})).to.throw(ProgramArgsError, `cannot read the config file ${join(dir, 'missing.yaml')}: ENOENT`);
  });

  it('an agent file: keys are the agent\'s own flags (a controller key is unknown there)', async () => {
    const path = await file('agent.yaml', [
      'controller: cairn.example.com:8443', 'data-dir: /var/lib/cairn-agent', 'controller-ca: /etc/cairn/ca.pem',
      'cpu-millis: 4000', 'memory-bytes: 8589934592', 'game-ports: 41565-41664', 'bind-address: 10.0.0.5',
    ].join('\n'));
    const config = parseAgentConfig(['--config', path], { CAIRN_AGENT_MEMORY_BYTES: '1073741824' });
    expect(config).to.deep.include({
      controller: 'cairn.example.com:8443', dataDir: '/var/lib/cairn-agent', controllerCa: '/etc/cairn/ca.pem',
      cpuMillis: 4000, memoryBytes: 2 ** 30, gamePorts: { first: 41565, last: 41664 }, bindAddress: '10.0.0.5',
    });
    expect(parseAgentConfig(['--data-dir', '/tmp/a'], { CAIRN_AGENT_CONFIG: path }).dataDir).to.equal('/tmp/a');
    const wrong = await file('agent-wrong.yaml', 'controller: c:1\ndata-dir: /x\nhttp-port: 8080\n');
    expect(() => parseAgentConfig(['--config', wrong], {})).to.throw(ProgramArgsError, /^unknown key 'http-port'/);
    const bad = await file('agent-bad.yaml', 'controller: c:1\ndata-dir: /x\ncpu-millis: -1\n');
    expect(() => parseAgentConfig(['--config', bad], {})).to.throw('--cpu-millis must be a whole number of at least 0, got "-1"');
  });

  it('the agent\'s required settings may come from the file alone', async () => {
    const path = await file('agent-min.yaml', 'controller: 127.0.0.1:8443\ndata-dir: agent-data\n');
    expect(parseAgentConfig(['--config', path], {})).to.deep.include({ controller: '127.0.0.1:8443', dataDir: join(process.cwd(), 'agent-data') });
    const none = await file('agent-none.yaml', 'data-dir: /x\n');
    expect(() => parseAgentConfig(['--config', none], {})).to.throw('--controller HOST:PORT is required');
  });
});
