import { Access } from './access.js';
import { AuditService } from './audit.js';
import { AuthService } from './auth.js';
import type { ServiceDeps } from './deps.js';
import { NetworkService } from './network.js';
import { RoleService } from './roles.js';
import { SessionService, defaultSessionPolicy, type SessionPolicy } from './sessions.js';
import { SetupService } from './setup.js';
import { TeamService } from './teams.js';
import { TokenService } from './tokens.js';
import { UserService } from './users.js';

/** Every service of the Controller, built once from shared deps. */
export function createServices(deps: ServiceDeps, sessionPolicy: SessionPolicy = defaultSessionPolicy) {
  const access = new Access(deps.repos);
  const sessions = new SessionService(deps, sessionPolicy);
  const roles = new RoleService(deps, access);
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
    audit: new AuditService(deps, access),
    network: new NetworkService(deps, access),
  };
}

export type Services = ReturnType<typeof createServices>;
