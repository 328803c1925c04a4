/**
 * The response bodies of the public API as tests see them, each derived once from its typebox
 * schema. The Controller under test checks every answer against the same schema
 * (`checkResponses`), so `client.get<ServerDetail>(...)` states a fact the server enforces.
 */
import type { Static, TSchema } from 'typebox';
import type * as agentLink from '../../src/controller/schemas/agent-link.js';
import type * as audit from '../../src/controller/schemas/audit.js';
import type * as auth from '../../src/controller/schemas/auth.js';
import type * as backups from '../../src/controller/schemas/backups.js';
import type * as catalog from '../../src/controller/schemas/catalog.js';
import type * as common from '../../src/controller/schemas/common.js';
import type * as migrations from '../../src/controller/schemas/migrations.js';
import type * as network from '../../src/controller/schemas/network.js';
import type * as nodes from '../../src/controller/schemas/nodes.js';
import type * as oidc from '../../src/controller/schemas/oidc.js';
import type * as operations from '../../src/controller/schemas/operations.js';
import type * as plugins from '../../src/controller/schemas/plugins.js';
import type * as roles from '../../src/controller/schemas/roles.js';
import type * as schedules from '../../src/controller/schemas/schedules.js';
import type * as servers from '../../src/controller/schemas/servers.js';
import type * as sftp from '../../src/controller/schemas/sftp.js';
import type * as software from '../../src/controller/schemas/software.js';
import type * as teams from '../../src/controller/schemas/teams.js';
import type * as templates from '../../src/controller/schemas/templates.js';
import type * as totp from '../../src/controller/schemas/totp.js';
import type * as users from '../../src/controller/schemas/users.js';
import type * as webhooks from '../../src/controller/schemas/webhooks.js';
import type * as usage from '../../src/controller/schemas/usage.js';
import type { ConsoleEndEvent, ConsoleLineEvent, ConsoleReplayedEvent } from '../../src/controller/schemas/console-events.js';
import type { ServerWatchSynced } from '../../src/controller/schemas/watch-events.js';

/** A list endpoint's answer for items of schema `S`. */
export type PageOf<S extends TSchema> = Static<ReturnType<typeof common.Paged<S>>>;

/** Any list endpoint's answer, for checks that hold for every list. */
export type AnyPage = PageOf<TSchema>;

export type Problem = Static<typeof common.Problem>;
export type OidcSetting = Static<typeof oidc.OidcSetting>;
export type AuthMethods = Static<typeof oidc.AuthMethods>;

export type AgentLink = agentLink.AgentLink;
export type AuditEvent = Static<typeof audit.AuditEvent>;
export type ApiToken = Static<typeof auth.ApiToken>;
export type CreatedApiToken = Static<typeof auth.CreatedApiToken>;
export type SshKey = Static<typeof sftp.SshKey>;
export type SshKeyList = Static<typeof sftp.SshKeyList>;
export type TotpEnrolment = Static<typeof totp.TotpEnrolment>;
export type TotpRecoveryCodes = Static<typeof totp.TotpRecoveryCodes>;
export type Backup = Static<typeof backups.Backup>;
export type BackupDestination = Static<typeof backups.BackupDestination>;
export type BackupSchedule = Static<typeof backups.BackupSchedule>;
export type CatalogPluginItem = Static<typeof catalog.CatalogPluginItem>;
export type CatalogPluginDetail = Static<typeof catalog.CatalogPluginDetail>;
export type CatalogSyncResult = Static<typeof catalog.CatalogSyncResult>;
export type TemplateVersion = Static<typeof software.TemplateVersion>;
export type TemplateVersionPage = PageOf<typeof software.TemplateVersion>;
export type SoftwareSyncResult = Static<typeof software.SoftwareSyncResult>;
export type Network = Static<typeof network.Network>;
export type NetworkRoutes = Static<typeof network.NetworkRoutes>;
export type Node = Static<typeof nodes.Node>;
export type DrainStarted = Static<typeof migrations.DrainStarted>;
export type EnrollmentIssued = Static<typeof nodes.EnrollmentIssued>;
export type FileList = Static<typeof operations.FileList>;
export type FileMove = Static<typeof operations.FileMove>;
export type CommandSent = Static<typeof operations.CommandSent>;
export type PropertiesView = Static<typeof operations.PropertiesView>;
export type PropertiesChanged = Static<typeof operations.PropertiesChanged>;
export type PluginInstallation = Static<typeof plugins.PluginInstallation>;
export type Role = Static<typeof roles.Role>;
export type ServerListItem = Static<typeof servers.ServerListItem>;
export type ServerDetail = Static<typeof servers.ServerDetail>;
export type ServerUsage = Static<typeof usage.ServerUsage>;
export type Team = Static<typeof teams.Team>;
export type TeamDetail = Static<typeof teams.TeamDetail>;
export type Membership = Static<typeof teams.Membership>;
export type TemplateSummary = Static<typeof templates.TemplateSummary>;
export type User = users.User;
export type PasswordResetIssued = Static<typeof users.PasswordResetIssued>;

export type AuditEventPage = PageOf<typeof audit.AuditEvent>;
export type Webhook = Static<typeof webhooks.Webhook>;
export type WebhookPage = PageOf<typeof webhooks.Webhook>;
export type WebhookDelivery = Static<typeof webhooks.WebhookDelivery>;
export type WebhookDeliveryPage = PageOf<typeof webhooks.WebhookDelivery>;
export type WebhookEventBody = webhooks.WebhookEventBody;
export type Schedule = schedules.Schedule;
export type SchedulePage = PageOf<typeof schedules.Schedule>;
export type ScheduleRun = schedules.ScheduleRun;
export type ScheduleRunPage = PageOf<typeof schedules.ScheduleRun>;
export type ApiTokenPage = PageOf<typeof auth.ApiToken>;
export type BackupPage = PageOf<typeof backups.Backup>;
export type BackupDestinationPage = PageOf<typeof backups.BackupDestination>;
export type BackupSchedulePage = PageOf<typeof backups.BackupSchedule>;
export type CatalogPluginPage = Static<typeof catalog.CatalogPluginPage>;
export type NodePage = PageOf<typeof nodes.Node>;
export type PluginInstallationPage = PageOf<typeof plugins.PluginInstallation>;
export type RolePage = PageOf<typeof roles.Role>;
export type ServerPage = PageOf<typeof servers.ServerListItem>;
export type TeamPage = PageOf<typeof teams.Team>;
export type MembershipPage = PageOf<typeof teams.Membership>;
export type TemplatePage = PageOf<typeof templates.TemplateSummary>;
export type UserPage = PageOf<typeof users.User>;

/** The console stream's events (GET /servers/{id}/console). */
export type ConsoleStreamEvent = { event: 'line'; data: ConsoleLineEvent } | { event: 'replayed'; data: ConsoleReplayedEvent } | { event: 'end'; data: ConsoleEndEvent };
/** The server watch's events (GET /servers/watch), each with its SSE id. */
export type ServerWatchEvent = ({ event: 'server'; data: ServerListItem } | { event: 'server-deleted'; data: Pick<ServerListItem, 'id'> } | { event: 'synced'; data: ServerWatchSynced }) & { id: string };

/** The parts of GET /api/v1/openapi.json (an OpenAPI 3.1 document, built from the same schemas) that tests read. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; description: string; license?: { name: string; identifier?: string } };
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { securitySchemes: Record<string, { name?: string }>; schemas: Record<string, Record<string, unknown>> };
}

export interface OpenApiOperation {
  operationId: string;
  description?: string;
  security: unknown[];
  requestBody?: { content: Record<string, OpenApiMedia> };
  responses: Record<string, { description: string; content?: Record<string, OpenApiMedia> }>;
}

interface OpenApiMedia {
  schema: { properties: Record<string, unknown>; required?: string[]; $ref?: string };
}
