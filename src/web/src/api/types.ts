/**
 * The API's types, taken from the Controller's typebox schemas (the same ones that validate
 * requests and generate the OpenAPI document). Type imports only: nothing of the server is
 * bundled. This is the one file of the web UI that reaches outside src/web.
 */
import type { Static, TUnsafe } from 'typebox';
import type * as agentLink from '../../../controller/schemas/agent-link.js';
import type * as audit from '../../../controller/schemas/audit.js';
import type * as auth from '../../../controller/schemas/auth.js';
import type * as backups from '../../../controller/schemas/backups.js';
import type * as catalog from '../../../controller/schemas/catalog.js';
import type * as cluster from '../../../controller/schemas/cluster.js';
import type * as common from '../../../controller/schemas/common.js';
import type * as fileArchives from '../../../controller/schemas/file-archives.js';
import type * as fileUploads from '../../../controller/schemas/file-uploads.js';
import type * as migrations from '../../../controller/schemas/migrations.js';
import type * as modpacks from '../../../controller/schemas/modpacks.js';
import type * as network from '../../../controller/schemas/network.js';
import type * as oidc from '../../../controller/schemas/oidc.js';
import type * as nodes from '../../../controller/schemas/nodes.js';
import type * as operations from '../../../controller/schemas/operations.js';
import type * as plugins from '../../../controller/schemas/plugins.js';
import type * as roles from '../../../controller/schemas/roles.js';
import type * as schedules from '../../../controller/schemas/schedules.js';
import type * as servers from '../../../controller/schemas/servers.js';
import type * as setup from '../../../controller/schemas/setup.js';
import type * as sftp from '../../../controller/schemas/sftp.js';
import type * as software from '../../../controller/schemas/software.js';
import type * as softwareUpdate from '../../../controller/schemas/software-update.js';
import type * as teams from '../../../controller/schemas/teams.js';
import type * as templates from '../../../controller/schemas/templates.js';
import type * as totp from '../../../controller/schemas/totp.js';
import type * as users from '../../../controller/schemas/users.js';
import type * as usage from '../../../controller/schemas/usage.js';
import type * as webhooks from '../../../controller/schemas/webhooks.js';
import type { ConsoleEndEvent, ConsoleLineEvent } from '../../../controller/schemas/console-events.js';

/** A page of any list the API answers: `Page<User>`, `Page<Backup>`. */
export type Page<T> = Static<ReturnType<typeof common.Paged<TUnsafe<T>>>>;
export type PageQuery = Static<typeof common.PageQuery>;
export type ProblemBody = Static<typeof common.Problem>;

export type AgentLink = Static<typeof agentLink.AgentLink>;
/** One of the spec's permission values, e.g. `servers.start`. */
export type Permission = Static<typeof roles.PermissionValue>;
/** A permission a user may hold outside any team (today only `nodes.manage`). */
export type GlobalPermission = Static<typeof users.GlobalPermissions>[number];

export type SetupStatus = Static<typeof setup.SetupStatus>;
export type SetupInput = Static<typeof setup.Setup>;
export type User = Static<typeof users.User>;
export type CreateUser = Static<typeof users.CreateUser>;
export type UpdateUser = Static<typeof users.UpdateUser>;
export type PasswordResetIssued = Static<typeof users.PasswordResetIssued>;
export type LoginInput = Static<typeof auth.Login>;
export type ChangePasswordInput = Static<typeof auth.ChangePassword>;
export type RedeemPasswordResetInput = Static<typeof auth.RedeemPasswordReset>;
export type ApiToken = Static<typeof auth.ApiToken>;
export type CreateApiToken = Static<typeof auth.CreateApiToken>;
export type TotpEnrolment = Static<typeof totp.TotpEnrolment>;
export type TotpRecoveryCodes = Static<typeof totp.TotpRecoveryCodes>;
export type ConfirmTotpInput = Static<typeof totp.ConfirmTotp>;
export type TotpCodeInput = Static<typeof totp.TotpCodeBody>;
export type CreatedApiToken = Static<typeof auth.CreatedApiToken>;
export type AuthMethods = Static<typeof oidc.AuthMethods>;
export type OidcSetting = Static<typeof oidc.OidcSetting>;
export type PutOidcSetting = Static<typeof oidc.PutOidcSetting>;
export type OidcTeamMapping = Static<typeof oidc.OidcTeamMapping>;

export type Team = Static<typeof teams.Team>;
export type TeamDetail = Static<typeof teams.TeamDetail>;
export type CreateTeam = Static<typeof teams.CreateTeam>;
export type Membership = Static<typeof teams.Membership>;
export type SetMembership = Static<typeof teams.SetMembership>;

export type Role = Static<typeof roles.Role>;
export type CreateRole = Static<typeof roles.CreateRole>;
export type UpdateRole = Static<typeof roles.UpdateRole>;

export type AuditEvent = Static<typeof audit.AuditEvent>;
export type AuditQuery = Static<typeof audit.AuditQuery>;

export type Network = Static<typeof network.Network>;
export type UpdateNetwork = Static<typeof network.UpdateNetwork>;
export type CreateProxy = Static<typeof network.CreateProxy>;
export type NetworkRoute = Static<typeof network.NetworkRoute>;
export type NetworkRoutes = Static<typeof network.NetworkRoutes>;

export type Node = Static<typeof nodes.Node>;
export type Cluster = Static<typeof cluster.Cluster>;
export type ClusterController = Static<typeof cluster.ClusterController>;
export type CreateNode = Static<typeof nodes.CreateNode>;
export type UpdateNode = Static<typeof nodes.UpdateNode>;
export type EnrollmentIssued = Static<typeof nodes.EnrollmentIssued>;

export type TemplateSummary = Static<typeof templates.TemplateSummary>;
export type TemplateVersion = Static<typeof software.TemplateVersion>;
export type SoftwareSyncResult = Static<typeof software.SoftwareSyncResult>;
export type ModpackSearch = Static<typeof modpacks.PackSearchResult>;
export type ModpackSearchItem = Static<typeof modpacks.PackSummary>;
export type ServerModpack = Static<typeof modpacks.ServerModpack>;
export type UpdateSoftware = Static<typeof softwareUpdate.UpdateSoftware>;

export type ServerListItem = Static<typeof servers.ServerListItem>;
export type ServerListQuery = Static<typeof servers.ServerListQuery>;
export type ServerDetail = Static<typeof servers.ServerDetail>;
export type ServerUsage = Static<typeof usage.ServerUsage>;
export type UsageSample = Static<typeof usage.UsageSampleSchema>;
export type UsageWindow = Static<typeof usage.UsageQuery>['window'] & string;
export type CreateServer = Static<typeof servers.CreateServer>;
export type UpdateServer = Static<typeof servers.UpdateServer>;
export type StatusCondition = Static<typeof common.ConditionSchema>;
export type Phase = ServerDetail['phase'];
export type ServerRuntimeState = NonNullable<ServerDetail['status']['runtimeState']>;
export type Convergence = ServerDetail['convergence'];

export type FileItem = Static<typeof operations.FileItem>;
export type FileList = Static<typeof operations.FileList>;
export type FileMove = Static<typeof operations.FileMove>;
export type FileExtract = Static<typeof fileArchives.FileExtract>;
export type FileCompress = Static<typeof fileArchives.FileCompress>;
export type ArchiveJob = Static<typeof fileArchives.ArchiveJob>;
export type Upload = Static<typeof fileUploads.Upload>;
export type SftpAddress = Static<typeof sftp.SftpAddress>;
export type SshKey = Static<typeof sftp.SshKey>;
export type SshKeyList = Static<typeof sftp.SshKeyList>;
export type CreateSshKey = Static<typeof sftp.CreateSshKey>;
export type PropertiesView = Static<typeof operations.PropertiesView>;
export type PropertiesChange = Static<typeof operations.PropertiesChange>;
export type PropertiesChanged = Static<typeof operations.PropertiesChanged>;
export type CommandSent = Static<typeof operations.CommandSent>;
export type { ConsoleEndEvent, ConsoleLineEvent };

export type PluginInstallation = Static<typeof plugins.PluginInstallation>;
export type InstallPlugin = Static<typeof plugins.InstallPlugin>;
export type UpdatePlugin = Static<typeof plugins.UpdatePlugin>;
export type CatalogPlugin = Static<typeof catalog.CatalogPluginItem>;
export type CatalogPage = Static<typeof catalog.CatalogPluginPage>;
export type CatalogQuery = Static<typeof catalog.CatalogListQuery>;
export type CatalogPluginDetail = Static<typeof catalog.CatalogPluginDetail>;

export type BackupDestination = Static<typeof backups.BackupDestination>;
export type BackupDestinationKind = BackupDestination['kind'];
export type CreateBackupDestination = Static<typeof backups.CreateDestination>;
export type UpdateBackupDestination = Static<typeof backups.UpdateDestination>;
export type Backup = Static<typeof backups.Backup>;
export type BackupState = Backup['state'];
export type CreateBackup = Static<typeof backups.TakeBackup>;
export type BackupListQuery = Static<typeof backups.BackupListQuery>;
export type RestoreBackup = Static<typeof backups.RestoreBackup>;
export type BackupSchedule = Static<typeof backups.BackupSchedule>;
export type CreateBackupSchedule = Static<typeof backups.CreateSchedule>;

export type MigrateServer = Static<typeof migrations.MigrateServer>;
/** The drained Node and the servers being moved off it. */
export type DrainStarted = Static<typeof migrations.DrainStarted>;

export type Webhook = Static<typeof webhooks.Webhook>;
export type CreateWebhook = Static<typeof webhooks.CreateWebhook>;
export type UpdateWebhook = Static<typeof webhooks.UpdateWebhook>;
export type WebhookFormat = Webhook['format'];
export type WebhookEventName = webhooks.WebhookEventName;
export type WebhookDelivery = Static<typeof webhooks.WebhookDelivery>;
export type Schedule = Static<typeof schedules.Schedule>;
export type ScheduleTask = Static<typeof schedules.ScheduleTask>;
export type ScheduleTaskAction = schedules.ScheduleTaskAction;
export type ScheduleRun = Static<typeof schedules.ScheduleRun>;
export type ScheduleRunResult = schedules.ScheduleRunResult;
export type ScheduleRunReason = schedules.ScheduleRunReason;
export type ScheduleTaskResult = schedules.ScheduleTaskResult;
export type CreateServerSchedule = Static<typeof schedules.CreateServerSchedule>;
export type UpdateServerSchedule = Static<typeof schedules.UpdateServerSchedule>;
/** The literal types of the API's limits and default, so the UI's copies of them cannot drift. */
export type DefaultWarnCommand = typeof schedules.defaultWarnCommand;
export type MaxScheduleTasks = typeof schedules.maxScheduleTasks;
export type MaxTaskOffsetSeconds = typeof schedules.maxTaskOffsetSeconds;
