/**
 * The API's types the CLI reads, taken from the Controller's typebox schemas (the same ones that
 * validate requests, check answers and generate the OpenAPI document). Type imports only, erased
 * at compile time: the built CLI loads nothing of the Controller (`cli-only-shared`).
 * `-o json` and `-o yaml` print what the API sent, not these types.
 */
import type { Static, TUnsafe } from 'typebox';
import type * as agentLink from '../controller/schemas/agent-link.js';
import type * as audit from '../controller/schemas/audit.js';
import type * as auth from '../controller/schemas/auth.js';
import type * as backups from '../controller/schemas/backups.js';
import type * as catalog from '../controller/schemas/catalog.js';
import type * as common from '../controller/schemas/common.js';
import type * as fileArchives from '../controller/schemas/file-archives.js';
import type * as fileUploads from '../controller/schemas/file-uploads.js';
import type * as migrations from '../controller/schemas/migrations.js';
import type * as modpacks from '../controller/schemas/modpacks.js';
import type * as nodes from '../controller/schemas/nodes.js';
import type * as operations from '../controller/schemas/operations.js';
import type * as plugins from '../controller/schemas/plugins.js';
import type * as roles from '../controller/schemas/roles.js';
import type * as schedules from '../controller/schemas/schedules.js';
import type * as servers from '../controller/schemas/servers.js';
import type * as sftp from '../controller/schemas/sftp.js';
import type * as software from '../controller/schemas/software.js';
import type * as softwareUpdate from '../controller/schemas/software-update.js';
import type * as teams from '../controller/schemas/teams.js';
import type * as templates from '../controller/schemas/templates.js';
import type * as users from '../controller/schemas/users.js';
import type * as usage from '../controller/schemas/usage.js';
import type * as webhooks from '../controller/schemas/webhooks.js';
import type { ConsoleEndEvent, ConsoleLineEvent } from '../controller/schemas/console-events.js';
import type { ServerWatchSynced } from '../controller/schemas/watch-events.js';

/** A list endpoint's answer with items of type `T`. */
export type Page<T> = Static<ReturnType<typeof common.Paged<TUnsafe<T>>>>;
export type Problem = Static<typeof common.Problem>;
export type Condition = Static<typeof common.ConditionSchema>;

export type ServerItem = Static<typeof servers.ServerListItem>;
export type ServerDetail = Static<typeof servers.ServerDetail>;
export type UpdateServer = Static<typeof servers.UpdateServer>;
/** `sleep` as create and PATCH take it: `wakeOnJoin` left out means true. */
export type Sleep = Static<typeof servers.SleepSchema>;
export type ServerUsage = Static<typeof usage.ServerUsage>;
export type NodeInfo = Static<typeof nodes.Node>;
export type EnrollmentIssued = Static<typeof nodes.EnrollmentIssued>;
export type DrainStarted = Static<typeof migrations.DrainStarted>;
export type AgentLink = Static<typeof agentLink.AgentLink>;
export type Team = Static<typeof teams.Team>;
export type Membership = Static<typeof teams.Membership>;
export type User = Static<typeof users.User>;
export type CreatedApiToken = Static<typeof auth.CreatedApiToken>;
export type Role = Static<typeof roles.Role>;
export type Template = Static<typeof templates.TemplateSummary>;
export type TemplateVersion = Static<typeof software.TemplateVersion>;
export type SoftwareSyncResult = Static<typeof software.SoftwareSyncResult>;
export type ServerModpack = Static<typeof modpacks.ServerModpack>;
export type UpdateSoftware = Static<typeof softwareUpdate.UpdateSoftware>;
export type Backup = Static<typeof backups.Backup>;
export type BackupDestination = Static<typeof backups.BackupDestination>;
export type CreateBackupDestination = Static<typeof backups.CreateDestination>;
export type UpdateBackupDestination = Static<typeof backups.UpdateDestination>;
export type AuditEvent = Static<typeof audit.AuditEvent>;
export type Schedule = Static<typeof schedules.Schedule>;
export type ScheduleTask = Static<typeof schedules.ScheduleTask>;
export type ScheduleRun = Static<typeof schedules.ScheduleRun>;
export type CreateServerSchedule = Static<typeof schedules.CreateServerSchedule>;
export type PropertiesView = Static<typeof operations.PropertiesView>;
export type PluginInstallation = Static<typeof plugins.PluginInstallation>;
export type CatalogPluginItem = Static<typeof catalog.CatalogPluginItem>;
export type CatalogPluginDetail = Static<typeof catalog.CatalogPluginDetail>;
export type Webhook = Static<typeof webhooks.Webhook>;
export type WebhookDelivery = Static<typeof webhooks.WebhookDelivery>;
export type ArchiveJob = Static<typeof fileArchives.ArchiveJob>;
export type FileExtract = Static<typeof fileArchives.FileExtract>;
export type FileCompress = Static<typeof fileArchives.FileCompress>;
export type SshKey = Static<typeof sftp.SshKey>;
export type SshKeyList = Static<typeof sftp.SshKeyList>;
export type CreateSshKey = Static<typeof sftp.CreateSshKey>;
export type Upload = Static<typeof fileUploads.Upload>;
export type { ConsoleEndEvent, ConsoleLineEvent, ServerWatchSynced };
