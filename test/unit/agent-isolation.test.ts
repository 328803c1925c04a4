import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor, waitFor } from 'xstate';
import { boxedCommand } from '../../src/agent/isolation/box-command.js';
import { cgroupLayoutOf, parseMountInfo } from '../../src/agent/isolation/cgroup-layout.js';
import { cpuQuotaUs, prepareServerGroup, serverGroupDirs } from '../../src/agent/isolation/cgroups.js';
import { GameIdentities, UidRangeExhaustedError } from '../../src/agent/isolation/game-identities.js';
import { lowestFreeUid, parseGameUids } from '../../src/agent/isolation/game-uids.js';
import { isolationUnavailableMessage } from '../../src/agent/isolation/isolation-mode.js';
import { missingCapabilities } from '../../src/agent/isolation/isolation-probe.js';
import { runtimeStateOf } from '../../src/agent/reconciler/runtime-state-of.js';
import { lastCrashOf } from '../../src/agent/reconciler/status-report.js';
import { signalOfBoxExit } from '../../src/agent/runtime/boxed-game.js';
import { parseOomKills } from '../../src/agent/runtime/cgroup-files.js';
import { machineTarget, stubbedServerMachine } from '../support/server-machine-rig.js';

/** Lines as this project's CI machine has them: v1 controllers, and an empty v2 tree beside them. */
const v1MountInfo = [
  '30 25 0:26 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '31 30 0:27 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '32 30 0:28 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct',
  '33 30 0:29 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '34 30 0:30 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
  '35 30 0:31 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');

/** A systemd host: one v2 tree with the controllers. */
const v2MountInfo = '29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot';

describe('containment: the cgroup layout of a host', () => {
  it('takes the v1 hierarchies when the v2 tree holds no controller', () => {
    const layout = cgroupLayoutOf(parseMountInfo(v1MountInfo), () => '');
    expect(layout).to.deep.equal({ version: 1, memory: '/sys/fs/cgroup/memory', cpu: '/sys/fs/cgroup/cpu', cpuacct: '/sys/fs/cgroup/cpuacct', pids: '/sys/fs/cgroup/pids' });
    expect(serverGroupDirs(layout!, 's1')).to.deep.equal([
      '/sys/fs/cgroup/memory/cairn/s1', '/sys/fs/cgroup/cpu/cairn/s1', '/sys/fs/cgroup/cpuacct/cairn/s1', '/sys/fs/cgroup/pids/cairn/s1',
    ]);
  });

  it('takes the v2 tree when it has the memory controller, with one group per server', () => {
    const layout = cgroupLayoutOf(parseMountInfo(v2MountInfo), (mount) => (mount === '/sys/fs/cgroup' ? 'cpuset cpu io memory hugetlb pids rdma misc\n' : null));
    expect(layout).to.deep.equal({ version: 2, root: '/sys/fs/cgroup' });
    expect(serverGroupDirs(layout!, 's1')).to.deep.equal(['/sys/fs/cgroup/cairn/s1']);
  });

  it('counts a shared v1 mount (cpu,cpuacct) once, and finds nothing without cgroups', () => {
    const shared = parseMountInfo('31 30 0:27 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n33 30 0:29 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory');
    expect(serverGroupDirs(cgroupLayoutOf(shared, () => null)!, 's')).to.deep.equal(['/sys/fs/cgroup/memory/cairn/s', '/sys/fs/cgroup/cpu,cpuacct/cairn/s']);
    expect(cgroupLayoutOf(parseMountInfo('22 1 8:1 / / rw - ext4 /dev/sda1 rw'), () => null)).to.equal(null);
  });

  it('turns millicores into a CFS quota per 100 ms period, at least the kernel\'s 1 ms', () => {
    expect(cpuQuotaUs(500)).to.equal(50_000);
    expect(cpuQuotaUs(2000)).to.equal(200_000);
    expect(cpuQuotaUs(1)).to.equal(1000);
  });

  it('reads the OOM kill count of v1 memory.oom_control and v2 memory.events', () => {
    expect(parseOomKills('oom_kill_disable 0\nunder_oom 0\noom_kill 2\n')).to.equal(2);
    expect(parseOomKills('low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n')).to.equal(1);
    expect(parseOomKills('oom_kill_disable 0\nunder_oom 0\n')).to.equal(0);
  });
});

describe('containment: the box command', () => {
  const identity = { uid: 200_001, gid: 200_001 };

  it('joins the cgroups, enters the network, the view, drops to the server\'s uid, then runs the game', () => {
    const { command, args } = boxedCommand({
      identity, setpriv: '/usr/bin/setpriv', procsFiles: ['/cg/memory/cairn/s/cgroup.procs', '/cg/pids/cairn/s/cgroup.procs'],
      netns: { nsenter: '/usr/bin/nsenter', path: '/run/netns/cairn-s' },
      view: {
        bwrap: '/usr/bin/bwrap', serverDir: '/data/servers/s/root', software: { from: '/data/servers/s/software', at: '/data/servers/s/root/.cairn' },
        entries: [{ kind: 'ro-bind', path: '/usr' }, { kind: 'symlink', target: 'usr/bin', path: '/bin' }, { kind: 'ro-bind', path: '/opt/jdk' }],
      },
    }, 'java', ['-jar', 'server.jar']);
    expect(command).to.equal('/bin/sh');
    expect(args.slice(2, 6)).to.deep.equal(['cairn-box', '2', '/cg/memory/cairn/s/cgroup.procs', '/cg/pids/cairn/s/cgroup.procs']);
    expect(args.slice(6, 9)).to.deep.equal(['/usr/bin/nsenter', '--net=/run/netns/cairn-s', '--']);
    const bwrap = args.indexOf('/usr/bin/bwrap');
    const setpriv = args.indexOf('/usr/bin/setpriv');
    expect(bwrap).to.equal(9);
    expect(setpriv).to.be.greaterThan(bwrap);
    const box = args.slice(bwrap, setpriv).join(' ');
    expect(box).to.include('--new-session --die-with-parent --unshare-pid');
    expect(box).to.include('--symlink usr/bin /bin');
    expect(box).to.include('--perms 1777 --tmpfs /tmp');
    expect(box).to.include('--ro-bind /usr /usr');
    // Every directory above a bind is made walkable, once.
    expect(box).to.include('--perms 0755 --dir /opt --ro-bind /opt/jdk /opt/jdk');
    expect(box).to.include('--perms 0755 --dir /data --perms 0755 --dir /data/servers --perms 0755 --dir /data/servers/s --bind /data/servers/s/root /data/servers/s/root --ro-bind /data/servers/s/software /data/servers/s/root/.cairn --chdir /data/servers/s/root');
    expect(box).to.not.include('--unshare-net');
    expect(args.slice(setpriv)).to.deep.equal([
      '/usr/bin/setpriv', '--reuid=200001', '--regid=200001', '--clear-groups', '--no-new-privs', '--inh-caps=-all', '--bounding-set=-all', '--', 'java', '-jar', 'server.jar',
    ]);
  });

  it('is the game alone when nothing is enforced, and only what is when part is', () => {
    expect(boxedCommand({ identity: null, setpriv: null, procsFiles: [], view: null, netns: null }, 'node', ['x.js'])).to.deep.equal({ command: 'node', args: ['x.js'] });
    expect(boxedCommand({ identity, setpriv: '/usr/bin/setpriv', procsFiles: [], view: null, netns: null }, 'node', ['x.js']).command).to.equal('/usr/bin/setpriv');
  });

  it('reads a box\'s exit code of 128 + n as the signal n', () => {
    expect(signalOfBoxExit(137)).to.equal('SIGKILL');
    expect(signalOfBoxExit(143)).to.equal('SIGTERM');
    expect(signalOfBoxExit(1)).to.equal(null);
    expect(signalOfBoxExit(null)).to.equal(null);
  });
});

describe('containment: what the Agent needs and what it says when something is missing', () => {
  it('names the capabilities an effective set lacks', () => {
    expect(missingCapabilities('000001ffffffffff')).to.deep.equal([]);
    expect(missingCapabilities('0000000000000000')).to.deep.equal(['CAP_CHOWN', 'CAP_DAC_OVERRIDE', 'CAP_KILL', 'CAP_SETGID', 'CAP_SETUID', 'CAP_SETPCAP', 'CAP_SYS_CHROOT', 'CAP_SYS_ADMIN']);
    // The bounding set of deploy/cairn-agent.service: exactly enough.
    expect(missingCapabilities((0b1 | 0b10 | 0b100000 | 0b1000000 | 0b10000000 | 0b100000000 | (1 << 18) | (1 << 21)).toString(16))).to.deep.equal([]);
    expect(missingCapabilities('00000000000000c0')).to.deep.equal(['CAP_CHOWN', 'CAP_DAC_OVERRIDE', 'CAP_KILL', 'CAP_SETPCAP', 'CAP_SYS_CHROOT', 'CAP_SYS_ADMIN']);
  });

  it('words ISOLATION_UNAVAILABLE for auto and for required', () => {
    const missing = ['bubblewrap (bwrap) is not installed', 'no usable memory cgroup controller'];
    expect(isolationUnavailableMessage('auto', missing)).to.equal('Games run without full isolation: bubblewrap (bwrap) is not installed; no usable memory cgroup controller.');
    expect(isolationUnavailableMessage('required', missing)).to.match(/^Games are not started: --isolation required, and bubblewrap/);
  });
});

describe('containment: uids per server', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'cairn-uids-'))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('parses --game-uids and refuses system uids, reversed and out-of-range ranges', () => {
    expect(parseGameUids('200000-299999')).to.deep.equal({ first: 200_000, last: 299_999 });
    for (const bad of ['0-100', '999-2000', '300-200', '5000', '1000-4294967295', 'a-b']) expect(parseGameUids(bad), bad).to.equal(undefined);
    expect(lowestFreeUid({ first: 10, last: 12 }, new Set([10, 11]))).to.equal(12);
    expect(lowestFreeUid({ first: 10, last: 11 }, new Set([10, 11]))).to.equal(undefined);
  });

  it('gives each server the lowest free uid, keeps it across a restart, and frees it on delete', async () => {
    const range = { first: 200_000, last: 200_002 };
    const ids = await GameIdentities.load(dir, range);
    const [a, b] = await Promise.all([ids.ensure('a'), ids.ensure('b')]);
    expect([a.uid, b.uid].sort()).to.deep.equal([200_000, 200_001]);
    expect(a.gid).to.equal(a.uid);
    expect(await ids.ensure('a')).to.deep.equal(a);
    const again = await GameIdentities.load(dir, range);
    expect(again.get('a')).to.deep.equal(a);
    expect(JSON.parse(await readFile(join(dir, 'game-uids.json'), 'utf8'))).to.deep.equal({ a: a.uid, b: b.uid });
    await again.release('a');
    expect(again.get('a')).to.equal(null);
    expect((await again.ensure('c')).uid).to.equal(a.uid);
    await again.ensure('d');
    await again.ensure('e').then(() => expect.fail('the range is full'), (e: unknown) => expect(e).to.be.instanceOf(UidRangeExhaustedError));
  });
});

describe('containment: a server\'s cgroup, written as the kernel lays it out', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'cairn-cgroup-'))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));
  const read = (...parts: string[]) => readFile(join(dir, ...parts), 'utf8');

  it('v2: hands memory, cpu and pids down to cairn/, then writes memory.max, memory.swap.max, cpu.max and pids.max', async () => {
    await writeFile(join(dir, 'cgroup.subtree_control'), 'cpu\n');
    await mkdir(join(dir, 'cairn'));
    await writeFile(join(dir, 'cairn', 'cgroup.subtree_control'), '');
    const group = await prepareServerGroup({ version: 2, root: dir }, 's1', { memoryBytes: 256 * 2 ** 20, cpuMillis: 500 });
    expect(await read('cgroup.subtree_control')).to.equal('+memory +pids');
    expect(await read('cairn', 'cgroup.subtree_control')).to.equal('+memory +cpu +pids');
    expect(await read('cairn', 's1', 'memory.max')).to.equal(String(256 * 2 ** 20));
    expect(await read('cairn', 's1', 'memory.swap.max')).to.equal('0');
    expect(await read('cairn', 's1', 'cpu.max')).to.equal('50000 100000');
    expect(await read('cairn', 's1', 'pids.max')).to.equal('4096');
    expect(group).to.deep.equal({ procsFiles: [join(dir, 'cairn', 's1', 'cgroup.procs')], dirs: [join(dir, 'cairn', 's1')], oomFile: join(dir, 'cairn', 's1', 'memory.events') });
  });

  it('v1: one group per hierarchy, each with its own limit file', async () => {
    const mount = (name: string) => join(dir, name);
    for (const name of ['memory', 'cpu', 'cpuacct', 'pids']) await mkdir(mount(name));
    const group = await prepareServerGroup({ version: 1, memory: mount('memory'), cpu: mount('cpu'), cpuacct: mount('cpuacct'), pids: mount('pids') }, 's1', { memoryBytes: 1 << 30, cpuMillis: 250 });
    expect(await read('memory', 'cairn', 's1', 'memory.limit_in_bytes')).to.equal(String(1 << 30));
    expect(await read('cpu', 'cairn', 's1', 'cpu.cfs_period_us')).to.equal('100000');
    expect(await read('cpu', 'cairn', 's1', 'cpu.cfs_quota_us')).to.equal('25000');
    expect(await read('pids', 'cairn', 's1', 'pids.max')).to.equal('4096');
    expect(group.procsFiles).to.have.length(4);
    expect(group.oomFile).to.equal(join(dir, 'memory', 'cairn', 's1', 'memory.oom_control'));
  });
});

describe('containment: the server machine', () => {
  const { machine, calls } = stubbedServerMachine();
  beforeEach(() => (calls.length = 0));

  it('an OOM kill is a crash with the reason OOM_KILLED and a condition naming the limit, until a crash of another kind', async () => {
    const actor = createActor(machine, { input: { desired: machineTarget({ restartPolicy: { maxRestarts: 5, windowSeconds: 60 } }), backoffBaseMs: 1 } }).start();
    await waitFor(actor, (s) => s.value === 'starting');
    actor.send({ type: 'READY_LINE' });
    actor.send({ type: 'EXITED', code: null, signal: 'SIGKILL', at: Date.now(), lastLines: [], oomKilled: true });
    let { context } = actor.getSnapshot();
    expect(lastCrashOf('s1', context.lastCrash, context.restarts)?.reason).to.equal('OOM_KILLED');
    expect(context.conditions.find((c) => c.reason === 'OOM_KILLED')?.message).to.equal('killed: out of memory at its 256 MiB limit');
    await waitFor(actor, (s) => s.value === 'starting');
    actor.send({ type: 'EXITED', code: 1, signal: null, at: Date.now(), lastLines: [] });
    ({ context } = actor.getSnapshot());
    expect(lastCrashOf('s1', context.lastCrash, context.restarts)?.reason).to.equal('');
    expect(context.conditions.map((c) => c.reason)).to.not.include('OOM_KILLED');
    actor.stop();
  });

  it('with a start refused (--isolation required without the box), a server wanted RUNNING stays STOPPED with the condition, and nothing starts', async () => {
    const refusal = { id: 's1:isolation-unavailable', reason: 'ISOLATION_UNAVAILABLE', message: 'Games are not started: --isolation required, and x.', since: new Date().toISOString() };
    const actor = createActor(machine, { input: { desired: machineTarget(), backoffBaseMs: 1, startRefusal: refusal } }).start();
    const s = await waitFor(actor, (snap) => snap.value === 'stopped');
    expect(runtimeStateOf('stopped', s.context)).to.equal('STOPPED');
    expect(s.context.conditions).to.deep.equal([refusal]);
    actor.send({ type: 'DESIRED', desired: machineTarget({ generation: 2 }), at: Date.now() });
    expect(actor.getSnapshot().value).to.equal('stopped');
    expect(calls).to.deep.equal([]);
    actor.stop();
  });
});
