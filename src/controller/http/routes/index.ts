import type { AgentLink } from '../../schemas/agent-link.js';
import type { Services } from '../../services/index.js';
import type { AnyRoute } from '../route.js';
import { auditRoutes } from './audit.js';
import { catalogRoutes } from './catalog.js';
import { clusterRoutes } from './cluster.js';
import { authRoutes } from './auth.js';
import { backupRoutes } from './backups.js';
import { consoleRoutes } from './console.js';
import { fileArchiveRoutes } from './file-archives.js';
import { fileUploadRoutes } from './file-uploads.js';
import { fileRoutes } from './files.js';
import { propertyRoutes } from './properties.js';
import { meRoutes } from './me.js';
import { migrationRoutes } from './migrations.js';
import { networkRoutes } from './network.js';
import { nodeRoutes } from './nodes.js';
import { oidcRoutes } from './oidc.js';
import { pluginRoutes } from './plugins.js';
import { roleRoutes } from './roles.js';
import { scheduleRoutes } from './schedules.js';
import { serverRoutes } from './servers.js';
import { softwareUpdateRoutes } from './software-update.js';
import { teamRoutes } from './teams.js';
import { templateRoutes } from './templates.js';
import { totpRoutes } from './totp.js';
import { userRoutes } from './users.js';
import { webhookRoutes } from './webhooks.js';

/** Every route of /api/v1, in the order the API reference lists them; `agentLink` is where the Agent link listens. */
export const allRoutes = (s: Services, agentLink: AgentLink): AnyRoute[] => [
  ...authRoutes(s),
  ...oidcRoutes(s),
  ...meRoutes(s),
  ...totpRoutes(s),
  ...userRoutes(s),
  ...teamRoutes(s),
  ...roleRoutes(s),
  ...auditRoutes(s),
  ...networkRoutes(s),
  ...nodeRoutes(s, agentLink),
  ...clusterRoutes(s),
  ...serverRoutes(s),
  ...migrationRoutes(s),
  ...softwareUpdateRoutes(s),
  ...consoleRoutes(s),
  ...fileRoutes(s),
  ...fileArchiveRoutes(s),
  ...fileUploadRoutes(s),
  ...propertyRoutes(s),
  ...templateRoutes(s),
  ...pluginRoutes(s),
  ...catalogRoutes(s),
  ...backupRoutes(s),
  ...scheduleRoutes(s),
  ...webhookRoutes(s),
];
