import { optional, required } from '../args.js';
import { need, type CommandGroup, type Verb } from '../command.js';

const GiB = 1024 ** 3;

export const nodeCommands: CommandGroup = {
  name: 'nodes',
  summary: 'Nodes: the hosts that run game servers',
  verbs: {
    list: { usage: 'cairn nodes list', run: async (_a, c) => need(c).all('/nodes') },
    get: { usage: 'cairn nodes get NODE_ID', run: async (a, c) => (await need(c).call('GET', `/nodes/${a.positionals[0]}`)).body },
    create: {
      usage: 'cairn nodes create --name NAME   (prints the one-time enrollment token for cairn-agent)',
      run: async (a, c) => (await need(c).call('POST', '/nodes', { name: required(a, 'name') })).body,
    },
    enable: { usage: 'cairn nodes enable NODE_ID', run: async (a, c) => (await need(c).call('POST', `/nodes/${a.positionals[0]}/enable`)).body },
    disable: { usage: 'cairn nodes disable NODE_ID', run: async (a, c) => (await need(c).call('POST', `/nodes/${a.positionals[0]}/disable`)).body },
    revoke: { usage: 'cairn nodes revoke NODE_ID   (final)', run: async (a, c) => (await need(c).call('POST', `/nodes/${a.positionals[0]}/revoke`)).body },
    'enrollment-token': {
      usage: 'cairn nodes enrollment-token NODE_ID',
      run: async (a, c) => (await need(c).call('POST', `/nodes/${a.positionals[0]}/enrollment-token`)).body,
    },
    delete: { usage: 'cairn nodes delete NODE_ID', run: async (a, c) => (await need(c).call('DELETE', `/nodes/${a.positionals[0]}`), { deleted: a.positionals[0] }) },
  },
};

const power = (verb: 'start' | 'stop' | 'restart'): Verb => ({
  usage: `cairn servers ${verb} SERVER_ID`,
  run: async (a, c) => (await need(c).call('POST', `/servers/${a.positionals[0]}/${verb}`)).body,
});

export const serverCommands: CommandGroup = {
  name: 'servers',
  summary: 'game servers: desired state in, observed status out',
  verbs: {
    list: { usage: 'cairn servers list', run: async (_a, c) => need(c).all('/servers') },
    get: { usage: 'cairn servers get SERVER_ID', run: async (a, c) => (await need(c).call('GET', `/servers/${a.positionals[0]}`)).body },
    create: {
      usage: 'cairn servers create --name NAME --team TEAM_ID --template ID --version V [--cpu-millis N] [--memory-gib N]',
      run: async (a, c) => (await need(c).call('POST', '/servers', {
        name: required(a, 'name'),
        teamId: required(a, 'team'),
        software: { template: required(a, 'template'), version: required(a, 'version') },
        resources: {
          cpuMillis: Number(optional(a, 'cpu-millis') ?? 1000),
          memoryBytes: Math.round(Number(optional(a, 'memory-gib') ?? 1) * GiB),
        },
      })).body,
    },
    start: power('start'),
    stop: power('stop'),
    restart: power('restart'),
    delete: { usage: 'cairn servers delete SERVER_ID', run: async (a, c) => (await need(c).call('DELETE', `/servers/${a.positionals[0]}`)).body },
  },
};
