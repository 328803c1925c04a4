import { apiUrl, del, get, patch, post, put, request } from './http';
import type * as T from './types';
import { resumableUpload, singlePutBytes } from './resumable-upload';
import { putWithProgress, type UploadProgressListener } from './upload';

const enc = encodeURIComponent;
const server = (id: string) => `/servers/${enc(id)}`;

/**
 * The API client: one function per endpoint the UI uses, typed by the Controller's schemas.
 * Pages call these only through TanStack Query (useQuery/useMutation), never from effects.
 */
export const api = {
  setup: {
    status: () => get<T.SetupStatus>('/setup'),
    run: (body: T.SetupInput) => post<T.User>('/setup', body),
  },
  auth: {
    login: (body: T.LoginInput) => post<T.User>('/auth/login', body),
    logout: () => post<void>('/auth/logout'),
    redeemReset: (body: T.RedeemPasswordResetInput) => post<void>('/auth/password-reset', body),
  },
  me: {
    get: () => get<T.User>('/me'),
    changePassword: (body: T.ChangePasswordInput) => post<void>('/me/password', body),
    tokens: (query: T.PageQuery = {}) => get<T.Page<T.ApiToken>>('/me/tokens', query),
    createToken: (body: T.CreateApiToken) => post<T.CreatedApiToken>('/me/tokens', body),
    revokeToken: (id: string) => del(`/me/tokens/${enc(id)}`),
    enrolTotp: () => post<T.TotpEnrolment>('/me/totp'),
    confirmTotp: (body: T.ConfirmTotpInput) => post<T.TotpRecoveryCodes>('/me/totp/confirm', body),
    disableTotp: (body: T.TotpCodeInput) => request<void>('DELETE', '/me/totp', { json: body }),
    sshKeys: () => get<T.SshKeyList>('/me/ssh-keys'),
    addSshKey: (body: T.CreateSshKey) => post<T.SshKey>('/me/ssh-keys', body),
    deleteSshKey: (id: string) => del(`/me/ssh-keys/${enc(id)}`),
  },
  users: {
    list: (query: T.PageQuery = {}) => get<T.Page<T.User>>('/users', query),
    get: (id: string) => get<T.User>(`/users/${enc(id)}`),
    create: (body: T.CreateUser) => post<T.User>('/users', body),
    update: (id: string, body: T.UpdateUser) => patch<T.User>(`/users/${enc(id)}`, body),
    delete: (id: string) => del(`/users/${enc(id)}`),
    issueReset: (id: string) => post<T.PasswordResetIssued>(`/users/${enc(id)}/password-reset`),
    resetTotp: (id: string) => del(`/users/${enc(id)}/totp`),
    unlock: (id: string) => post<void>(`/users/${enc(id)}/unlock`),
  },
  teams: {
    list: (query: T.PageQuery = {}) => get<T.Page<T.Team>>('/teams', query),
    get: (id: string) => get<T.TeamDetail>(`/teams/${enc(id)}`),
    create: (body: T.CreateTeam) => post<T.Team>('/teams', body),
    rename: (id: string, body: T.CreateTeam) => patch<T.TeamDetail>(`/teams/${enc(id)}`, body),
    delete: (id: string) => del(`/teams/${enc(id)}`),
    members: (id: string, query: T.PageQuery = {}) => get<T.Page<T.Membership>>(`/teams/${enc(id)}/members`, query),
    setMember: (id: string, userId: string, body: T.SetMembership) => request<T.Membership>('PUT', `/teams/${enc(id)}/members/${enc(userId)}`, { json: body }),
    removeMember: (id: string, userId: string) => del(`/teams/${enc(id)}/members/${enc(userId)}`),
  },
  roles: {
    list: (query: T.PageQuery = {}) => get<T.Page<T.Role>>('/roles', query),
    create: (body: T.CreateRole) => post<T.Role>('/roles', body),
    update: (id: string, body: T.UpdateRole) => patch<T.Role>(`/roles/${enc(id)}`, body),
    delete: (id: string) => del(`/roles/${enc(id)}`),
  },
  sso: {
    /** How one may sign in; needs no session (the sign-in page asks). */
    methods: () => get<T.AuthMethods>('/auth/methods'),
    get: () => get<T.OidcSetting>('/auth/oidc'),
    set: (body: T.PutOidcSetting) => request<T.OidcSetting>('PUT', '/auth/oidc', { json: body }),
    clear: () => del('/auth/oidc'),
  },
  audit: {
    search: (query: T.AuditQuery = {}) => get<T.Page<T.AuditEvent>>('/audit-events', query),
  },
  network: {
    get: () => get<T.Network>('/network'),
    update: (body: T.UpdateNetwork) => patch<T.Network>('/network', body),
    createProxy: (body: T.CreateProxy) => post<T.ServerDetail>('/network/proxy', body),
    routes: () => get<T.NetworkRoutes>('/network/routes'),
  },
  /** The Controllers sharing the store (global administrators). */
  cluster: {
    get: () => get<T.Cluster>('/cluster'),
  },
  /** Where Agents reach the Controller, for the enrollment command. */
  agentLink: {
    get: () => get<T.AgentLink>('/agent-link'),
  },
  nodes: {
    list: (query: T.PageQuery = {}) => get<T.Page<T.Node>>('/nodes', query),
    get: (id: string) => get<T.Node>(`/nodes/${enc(id)}`),
    create: (body: T.CreateNode) => post<T.EnrollmentIssued>('/nodes', body),
    update: (id: string, body: T.UpdateNode) => patch<T.Node>(`/nodes/${enc(id)}`, body),
    setAdminState: (id: string, verb: 'enable' | 'disable' | 'revoke') => post<T.Node>(`/nodes/${enc(id)}/${verb}`),
    /** Disables the Node and migrates every server off it, one at a time. */
    drain: (id: string) => post<T.DrainStarted>(`/nodes/${enc(id)}/drain`),
    issueEnrollmentToken: (id: string) => post<T.EnrollmentIssued>(`/nodes/${enc(id)}/enrollment-token`),
    delete: (id: string) => del(`/nodes/${enc(id)}`),
  },
  templates: {
    list: (query: T.PageQuery = {}) => get<T.Page<T.TemplateSummary>>('/templates', query),
    /** The versions a server of the template can run, newest first. */
    versions: (id: string, query: T.PageQuery & { project?: string } = {}) => get<T.Page<T.TemplateVersion>>(`/templates/${enc(id)}/versions`, query),
    /** Modrinth's modpacks matching `query`, in Modrinth's order (the `modrinth` template's projects). */
    modpacks: (query: string) => get<T.ModpackSearch>('/templates/modrinth/packs', { query }),
  },
  software: {
    /** Reads every upstream's versions now (global administrators); each source answers on its own. */
    sync: () => post<T.SoftwareSyncResult>('/software/sync'),
  },
  servers: {
    list: (query: T.ServerListQuery = {}) => get<T.Page<T.ServerListItem>>('/servers', query),
    get: (id: string) => get<T.ServerDetail>(server(id)),
    create: (body: T.CreateServer) => post<T.ServerDetail>('/servers', body),
    power: (id: string, verb: 'start' | 'stop' | 'restart') => post<T.ServerDetail>(`${server(id)}/${verb}`),
    update: (id: string, body: T.UpdateServer) => patch<T.ServerDetail>(server(id), body),
    delete: (id: string) => del<T.ServerDetail>(server(id)),
    acknowledge: (id: string, condition: string) => post<T.ServerDetail>(`${server(id)}/conditions/${enc(condition)}/acknowledge`),
    /** Retries a failed install: the server goes back to PROVISIONING. */
    reinstall: (id: string) => post<T.ServerDetail>(`${server(id)}/reinstall`),
    migrate: (id: string, body: T.MigrateServer) => post<T.ServerDetail>(`${server(id)}/migrate`, body),
    /** Answers the server's detail in phase UPDATING; the UPDATE workflow's steps follow in its detail. */
    updateSoftware: (id: string, body: T.UpdateSoftware) => post<T.ServerDetail>(`${server(id)}/software`, body),
    /** The server's CPU, memory and players over the window, oldest first; its Node keeps them (503 node_unavailable when it does not answer). */
    usage: (id: string, window: T.UsageWindow) => get<T.ServerUsage>(`${server(id)}/usage`, { window }),
    /** The SSE stream of `server` and `server-deleted` events (see useEventStream). */
    watchPath: '/servers/watch',
  },
  console: {
    command: (id: string, command: string) => post<T.CommandSent>(`${server(id)}/console/commands`, { command }),
    /** The SSE stream of `line` and `end` events. */
    streamPath: (id: string) => `${server(id)}/console`,
  },
  files: {
    list: (id: string, path: string) => get<T.FileList>(`${server(id)}/files`, { path }),
    read: (id: string, path: string) => request<string>('GET', `${server(id)}/files/content`, { query: { path } }),
    downloadUrl: (id: string, path: string) => apiUrl(`${server(id)}/files/content`, { path }),
    write: (id: string, path: string, content: Blob) => put<void>(`${server(id)}/files/content`, content, { path }),
    /** `write` for a picked file, telling how far it is; a file over 64 MiB goes in chunks through a resumable upload session. */
    upload: (id: string, path: string, file: Blob, onProgress: UploadProgressListener) => file.size > singlePutBytes
      ? resumableUpload(id, path, file, onProgress)
      : putWithProgress(`${server(id)}/files/content`, { path }, file, onProgress),
    mkdir: (id: string, path: string) => post<void>(`${server(id)}/files/directories`, undefined, { path }),
    delete: (id: string, path: string) => del(`${server(id)}/files`, { path }),
    /** Renames or moves within the server's root; a destination that exists is a conflict, never replaced. */
    move: (id: string, body: T.FileMove) => post<void>(`${server(id)}/files/move`, body),
    /** Starts extracting an archive (into its own folder unless `into`); answers the job RUNNING. */
    extract: (id: string, body: T.FileExtract) => post<T.ArchiveJob>(`${server(id)}/files/extract`, body),
    compress: (id: string, body: T.FileCompress) => post<T.ArchiveJob>(`${server(id)}/files/compress`, body),
    job: (id: string, jobId: string) => get<T.ArchiveJob>(`${server(id)}/files/jobs/${enc(jobId)}`),
    /** A folder as a zip made while it downloads: a plain link, the session cookie goes with it. */
    archiveUrl: (id: string, path: string) => apiUrl(`${server(id)}/files/archive`, { path }),
  },
  properties: {
    get: (id: string) => get<T.PropertiesView>(`${server(id)}/properties`),
    patch: (id: string, body: T.PropertiesChange) => patch<T.PropertiesChanged>(`${server(id)}/properties`, body),
  },
  plugins: {
    list: (id: string, query: T.PageQuery = {}) => get<T.Page<T.PluginInstallation>>(`${server(id)}/plugins`, query),
    install: (id: string, body: T.InstallPlugin) => post<T.PluginInstallation>(`${server(id)}/plugins`, body),
    update: (id: string, installationId: string, body: T.UpdatePlugin = {}) => post<T.PluginInstallation>(`${server(id)}/plugins/${enc(installationId)}/update`, body),
    remove: (id: string, installationId: string) => del(`${server(id)}/plugins/${enc(installationId)}`),
    upload: (id: string, jar: File) => request<T.PluginInstallation>('POST', `${server(id)}/plugins/upload`, { raw: jar, query: { fileName: jar.name } }),
  },
  backups: {
    /** Every backup the caller may read (global administrators: deleted servers' too), newest first. */
    list: (query: T.BackupListQuery = {}) => get<T.Page<T.Backup>>('/backups', query),
    ofServer: (serverId: string, query: T.PageQuery = {}) => get<T.Page<T.Backup>>(`${server(serverId)}/backups`, query),
    get: (id: string) => get<T.Backup>(`/backups/${enc(id)}`),
    create: (serverId: string, body: T.CreateBackup = {}) => post<T.Backup>(`${server(serverId)}/backups`, body),
    delete: (id: string) => del(`/backups/${enc(id)}`),
    /** Answers the server's detail in phase RESTORING; a PRE_RESTORE backup is taken first. */
    restore: (id: string, body: T.RestoreBackup = {}) => post<T.ServerDetail>(`/backups/${enc(id)}/restore`, body),
  },
  backupSchedules: {
    /** Every schedule of the servers the caller may read backups of. */
    list: (query: T.PageQuery = {}) => get<T.Page<T.BackupSchedule>>('/backup-schedules', query),
    ofServer: (serverId: string, query: T.PageQuery = {}) => get<T.Page<T.BackupSchedule>>(`${server(serverId)}/backup-schedules`, query),
    get: (id: string) => get<T.BackupSchedule>(`/backup-schedules/${enc(id)}`),
    create: (serverId: string, body: T.CreateBackupSchedule) => post<T.BackupSchedule>(`${server(serverId)}/backup-schedules`, body),
    delete: (id: string) => del(`/backup-schedules/${enc(id)}`),
  },
  backupDestinations: {
    list: (query: T.PageQuery = {}) => get<T.Page<T.BackupDestination>>('/backup-destinations', query),
    create: (body: T.CreateBackupDestination) => post<T.BackupDestination>('/backup-destinations', body),
    update: (id: string, body: T.UpdateBackupDestination) => patch<T.BackupDestination>(`/backup-destinations/${enc(id)}`, body),
    delete: (id: string) => del(`/backup-destinations/${enc(id)}`),
  },
  webhooks: {
    list: (query: T.PageQuery = {}) => get<T.Page<T.Webhook>>('/webhooks', query),
    create: (body: T.CreateWebhook) => post<T.Webhook>('/webhooks', body),
    update: (id: string, body: T.UpdateWebhook) => patch<T.Webhook>(`/webhooks/${enc(id)}`, body),
    delete: (id: string) => del(`/webhooks/${enc(id)}`),
    /** Queues a `webhook.test` delivery and answers it PENDING, before its first try. */
    test: (id: string) => post<T.WebhookDelivery>(`/webhooks/${enc(id)}/test`),
    deliveries: (id: string, query: T.PageQuery = {}) => get<T.Page<T.WebhookDelivery>>(`/webhooks/${enc(id)}/deliveries`, query),
  },
  schedules: {
    ofServer: (serverId: string, query: T.PageQuery = {}) => get<T.Page<T.Schedule>>(`${server(serverId)}/schedules`, query),
    create: (serverId: string, body: T.CreateServerSchedule) => post<T.Schedule>(`${server(serverId)}/schedules`, body),
    update: (id: string, body: T.UpdateServerSchedule) => patch<T.Schedule>(`/schedules/${enc(id)}`, body),
    delete: (id: string) => del(`/schedules/${enc(id)}`),
    /** Runs it now, once; the run answers RUNNING (or already SKIPPED) and goes on in the Controller. */
    run: (id: string) => post<T.ScheduleRun>(`/schedules/${enc(id)}/run`),
    /** Newest first. */
    runs: (id: string, query: T.PageQuery = {}) => get<T.Page<T.ScheduleRun>>(`/schedules/${enc(id)}/runs`, query),
  },
  catalog: {
    list: (query: T.CatalogQuery = {}) => get<T.CatalogPage>('/catalog/plugins', query),
    get: (pluginId: string) => get<T.CatalogPluginDetail>(`/catalog/plugins/${enc(pluginId)}`),
  },
};
