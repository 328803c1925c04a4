import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAgentConfig } from '../../src/agent/config.js';
import { parseControllerConfig } from '../../src/controller/program/config.js';
import { repoRoot } from '../support/run-program.js';

type Unit = Record<string, Record<string, string[]>>;

/** A systemd unit file as sections of keys, each with every value it was given (comments and blank lines dropped). */
function parseUnit(text: string): Unit {
  const unit: Unit = {};
  let section: Record<string, string[]> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = unit[header[1]] = {};
      continue;
    }
    const eq = line.indexOf('=');
    if (!section || eq <= 0) throw new Error(`not a unit file line: ${raw}`);
    (section[line.slice(0, eq)] ??= []).push(line.slice(eq + 1));
  }
  return unit;
}

const deploy = (name: string) => join(repoRoot, 'deploy', name);
const unitOf = (name: string) => parseUnit(readFileSync(deploy(name), 'utf8'));

/** deploy/: the systemd units and the example configs they name, read as systemd and the programs read them. */
describe('deploy/: systemd units and example configs', () => {
  const programs = [
    {
      // Without V8's memory reducer: its extra full GCs after each busy spell paused the Controller for 150-320 ms (bench/fleet.md).
      unit: 'cairn-controller.service', config: 'controller.yaml', entry: 'src/controller/main', nodeOptions: ['--no-memory-reducer'], user: 'cairn', load: (file: string) => parseControllerConfig(['--config', file], {}).dataDir,
      hardening: { ProtectKernelTunables: 'yes', ProtectControlGroups: 'yes', CapabilityBoundingSet: '', RestrictNamespaces: 'yes' },
    },
    // Root: boxing each game takes it (its own uid, a bubblewrap view, a cgroup); the bounding set keeps only what that needs.
    {
      unit: 'cairn-agent.service', config: 'agent.yaml', entry: 'src/agent/main', nodeOptions: [], user: 'root', load: (file: string) => parseAgentConfig(['--config', file], {}).dataDir,
      hardening: { ProtectKernelTunables: 'no', ProtectControlGroups: 'no', CapabilityBoundingSet: 'CAP_CHOWN CAP_DAC_OVERRIDE CAP_KILL CAP_NET_ADMIN CAP_SETGID CAP_SETUID CAP_SETPCAP CAP_SYS_ADMIN CAP_SYS_CHROOT', RestrictNamespaces: 'mnt pid ipc uts cgroup net' },
    },
  ];

  for (const p of programs) {
    describe(p.unit, () => {
      const unit = unitOf(p.unit);
      const service = unit.Service;
      const one = (key: string) => {
        expect(service[key], key).to.have.length(1);
        return service[key][0];
      };

      it('runs the built program as its own user with --config /etc/cairn/<file>, restarting on failure, started at boot', () => {
        expect(one('User')).to.equal(p.user);
        const [node, ...args] = one('ExecStart').split(/\s+/);
        expect(node).to.match(/^\//);
        // node's own options come before the program.
        const program = args.findIndex((arg) => !arg.startsWith('--'));
        expect(args.slice(0, program)).to.deep.equal(p.nodeOptions);
        expect(args[program]).to.equal(`/opt/cairn/dist/${p.entry}.js`);
        expect(existsSync(join(repoRoot, `${p.entry}.ts`)), `${p.entry}.ts exists`).to.equal(true);
        expect(args.slice(program + 1)).to.deep.equal(['--config', `/etc/cairn/${p.config}`]);
        expect(one('Restart')).to.equal('on-failure');
        expect(unit.Install.WantedBy).to.deep.equal(['multi-user.target']);
      });

      it('is hardened: no new privileges, a read-only system but for the data dir, no home, kernel protected, only the capabilities it needs', () => {
        const dataDir = p.load(deploy(p.config));
        for (const [key, value] of Object.entries({
          NoNewPrivileges: 'yes', ProtectSystem: 'strict', ProtectHome: 'yes', ProtectKernelModules: 'yes',
          ProtectKernelLogs: 'yes', LockPersonality: 'yes', RestrictSUIDSGID: 'yes', AmbientCapabilities: '', ...p.hardening,
        })) expect(one(key), key).to.equal(value);
        expect(one('ReadWritePaths').split(/\s+/)).to.include(dataDir);
        expect(one('StateDirectory')).to.equal(dataDir.replace('/var/lib/', ''));
        expect(one('RestrictAddressFamilies').split(/\s+/)).to.include.members(['AF_UNIX', 'AF_INET', 'AF_INET6']);
        // Node's JIT cannot run under it.
        expect(service.MemoryDenyWriteExecute).to.equal(undefined);
      });

      it(`the example ${p.config} loads with the real config loader`, () => {
        expect(p.load(deploy(p.config))).to.match(/^\/var\/lib\//);
      });
    });
  }

  it('the Agent unit signals only the Agent (KillMode=process), so the games under their detached shims keep running across restarts', () => {
    const service = unitOf('cairn-agent.service').Service;
    expect(service.KillMode).to.deep.equal(['process']);
    // A private /tmp is removed when the unit stops, under games that outlive it.
    expect(service.PrivateTmp).to.equal(undefined);
  });

  it('the Controller unit keeps the default KillMode (it has no children to spare) and a private /tmp', () => {
    const service = unitOf('cairn-controller.service').Service;
    expect(service.KillMode).to.equal(undefined);
    expect(service.PrivateTmp).to.deep.equal(['yes']);
  });

  it('the example configs name TLS both ways: the Controller its certificate and key, the Agent the CA it pins', () => {
    const controller = parseControllerConfig(['--config', deploy('controller.yaml')], {});
    expect(controller).to.deep.include({ host: '0.0.0.0', tlsCert: '/etc/cairn/tls/controller.pem', tlsKey: '/etc/cairn/tls/controller.key', localAgent: false });
    const agent = parseAgentConfig(['--config', deploy('agent.yaml')], {});
    expect(agent).to.deep.include({ controller: 'cairn.example.com:8443', controllerCa: '/etc/cairn/tls/ca.pem', enrollmentToken: undefined });
  });
});
