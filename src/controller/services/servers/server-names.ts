import { conflict } from '../../core/errors.js';
import { serverNameKey } from '../../domain/server-name.js';
import { isDuplicateKey } from '../../store/collection.js';
import type { Repositories } from '../../store/repositories.js';

const taken = (name: string) => conflict(`body.name: this team has a server named ${name} already (names are compared ignoring case).`);

/**
 * Server names are unique within a team, ignoring case. The store's unique index on `nameKey`
 * decides between two creates at once (on MongoDB, between two Controllers too). Servers stored
 * before the rule have no `nameKey`, so duplicates among them still load and run (the index is
 * sparse); a new name is also checked against their names here.
 */
export class ServerNames {
  constructor(private readonly repos: Pick<Repositories, 'servers'>) {}

  /** The `nameKey` a new server of that name takes in the team; 409 naming `body.name` if a server has the name. */
  async vacant(teamId: string, name: string): Promise<string> {
    const key = serverNameKey(teamId, name);
    const lower = name.toLowerCase();
    // Keyed servers answer by index; the team's older, unkeyed ones are compared by name.
    const clash = (await this.repos.servers.findOne({ nameKey: key })) ?? (await this.repos.servers.findShared({ teamId })).find((s) => s.nameKey === undefined && s.name.toLowerCase() === lower);
    if (clash) throw taken(name);
    return key;
  }

  /** A failed insert as the API answers it: the name's unique key is a 409 naming `body.name`. */
  static refusal(error: unknown, name: string): unknown {
    return isDuplicateKey(error) && error.field === 'nameKey' ? taken(name) : error;
  }
}
