/**
 * Every query key of the UI, in one place, so a mutation invalidates exactly what it changed.
 * Keys are hierarchical: invalidating `queryKeys.servers.all` also refreshes every list and detail.
 */
export const queryKeys = {
  setup: ['setup'] as const,
  me: ['me'] as const,
  sshKeys: ['me', 'ssh-keys'] as const,
  tokens: {
    all: ['me', 'tokens'] as const,
    list: (cursor?: string) => ['me', 'tokens', cursor ?? ''] as const,
  },
  users: {
    all: ['users'] as const,
    list: (cursor?: string) => ['users', 'list', cursor ?? ''] as const,
    /** Every user, for pickers and names in tables. */
    everything: ['users', 'everything'] as const,
  },
  teams: {
    all: ['teams'] as const,
    list: (cursor?: string) => ['teams', 'list', cursor ?? ''] as const,
    /** Every team the caller sees, for pickers and names in tables. */
    everything: ['teams', 'everything'] as const,
    detail: (id: string) => ['teams', 'detail', id] as const,
    members: {
      all: (teamId: string) => ['teams', teamId, 'members'] as const,
      list: (teamId: string, cursor?: string) => ['teams', teamId, 'members', cursor ?? ''] as const,
    },
  },
  roles: {
    all: ['roles'] as const,
    list: (cursor?: string) => ['roles', 'list', cursor ?? ''] as const,
    everything: ['roles', 'everything'] as const,
  },
  sso: {
    methods: ['sso', 'methods'] as const,
    setting: ['sso', 'setting'] as const,
  },
  audit: (query: object) => ['audit', query] as const,
  cluster: ['cluster'] as const,
  network: {
    all: ['network'] as const,
    record: ['network', 'record'] as const,
    routes: ['network', 'routes'] as const,
  },
  nodes: {
    all: ['nodes'] as const,
    list: (cursor?: string) => ['nodes', 'list', cursor ?? ''] as const,
    everything: ['nodes', 'everything'] as const,
    detail: (id: string) => ['nodes', 'detail', id] as const,
  },
  agentLink: ['agent-link'] as const,
  templates: ['templates'] as const,
  /** Under `templates`, so a sync that invalidates `templates` refreshes every version list too. */
  templateVersions: (id: string, project?: string) => ['templates', id, 'versions', project ?? ''] as const,
  modpacks: (query: string) => ['templates', 'modrinth', 'packs', query] as const,
  servers: {
    all: ['servers'] as const,
    lists: ['servers', 'list'] as const,
    list: (filters: object) => ['servers', 'list', filters] as const,
    detail: (id: string) => ['servers', 'detail', id] as const,
    /** Every folder's listing of the server: an extract may add to any of them. */
    allFiles: (id: string) => ['servers', 'detail', id, 'files'] as const,
    files: (id: string, path: string) => ['servers', 'detail', id, 'files', path] as const,
    fileJob: (id: string, jobId: string) => ['servers', 'detail', id, 'file-job', jobId] as const,
    file: (id: string, path: string) => ['servers', 'detail', id, 'file', path] as const,
    properties: (id: string) => ['servers', 'detail', id, 'properties'] as const,
    plugins: (id: string) => ['servers', 'detail', id, 'plugins'] as const,
    /** Every server the caller sees, for names and links in tables; not a `list`, which the watch stream edits page by page. */
    everything: ['servers', 'everything'] as const,
  },
  /** Not under `servers`: the watch stream's events refresh details, and the charts keep their own pace. */
  usage: (serverId: string, window: string) => ['usage', serverId, window] as const,
  catalog: (query: object) => ['catalog', query] as const,
  backups: {
    all: ['backups'] as const,
    ofServer: (serverId: string) => ['backups', 'server', serverId] as const,
    list: (filters: object) => ['backups', 'list', filters] as const,
    one: (id: string) => ['backups', 'one', id] as const,
  },
  backupSchedules: {
    all: ['backup-schedules'] as const,
    ofServer: (serverId: string) => ['backup-schedules', 'server', serverId] as const,
    list: ['backup-schedules', 'list'] as const,
  },
  backupDestinations: ['backup-destinations'] as const,
  webhooks: {
    all: ['webhooks'] as const,
    list: (cursor?: string) => ['webhooks', 'list', cursor ?? ''] as const,
    deliveries: {
      all: (id: string) => ['webhooks', 'deliveries', id] as const,
      list: (id: string, cursor?: string) => ['webhooks', 'deliveries', id, cursor ?? ''] as const,
    },
  },
  schedules: {
    all: ['schedules'] as const,
    ofServer: (serverId: string) => ['schedules', 'server', serverId] as const,
    runs: (scheduleId: string, cursor?: string) => ['schedules', 'runs', scheduleId, cursor ?? ''] as const,
  },
};
