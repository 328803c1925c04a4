import { NodeFleet, type TimerClock } from '../actors/fleet.js';
import { defaultNodeTimings, type NodeTimings } from '../actors/node-machine.js';
import { AgentSessions } from '../link/session-registry.js';
import type { TemplateCatalog } from '../templates/template-catalog.js';
import { Access } from './access.js';
import { AuditService } from './audit.js';
import { AuthService } from './auth.js';
import type { ServiceDeps } from './deps.js';
import { NetworkService } from './network.js';
import { NodeEnrollment } from './node-enrollment.js';
import { NodeService } from './nodes.js';
import { RoleService } from './roles.js';
import { SessionService, defaultSessionPolicy, type SessionPolicy } from './sessions.js';
import { SetupService } from './setup.js';
import { TeamService } from './teams.js';
import { TemplateService } from './templates.js';
import { TokenService } from './tokens.js';
import { UserService } from './users.js';

/** Node heartbeat timings and the timer clock of the Node actors; tests shorten or simulate them. */
export interface NodeRuntimeDeps {
  nodeTimings?: NodeTimings;
  nodeTimerClock?: TimerClock;
}

/** Every service of the Controller, built once from shared deps. */
export function createServices(deps: ServiceDeps & { templates: TemplateCatalog } & NodeRuntimeDeps, sessionPolicy: SessionPolicy = defaultSessionPolicy) {
  const access = new Access(deps.repos);
  const sessions = new SessionService(deps, sessionPolicy);
  const roles = new RoleService(deps, access);
  const audit = new AuditService(deps, access);
  // Nodes: the actors, the Controller's handle on connected Agents, and the enrollment gate.
  const fleet = new NodeFleet({ ...deps, timings: deps.nodeTimings ?? defaultNodeTimings, timerClock: deps.nodeTimerClock });
  const agents = new AgentSessions(deps.logger);
  const enrollment = new NodeEnrollment(deps, fleet, audit);
  return {
    deps,
    sessionPolicy,
    access,
    sessions,
    tokens: new TokenService(deps),
    auth: new AuthService(deps, sessions),
    setup: new SetupService(deps, sessions),
    users: new UserService(deps, access),
    roles,
    teams: new TeamService(deps, access, roles),
    audit,
    fleet,
    agents,
    enrollment,
    nodes: new NodeService(deps, access, fleet, agents, enrollment),
    network: new NetworkService(deps, access),
    templates: new TemplateService(deps.templates),
  };
}

export type Services = ReturnType<typeof createServices>;
