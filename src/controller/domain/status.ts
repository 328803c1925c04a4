import type { Static } from 'typebox';
import type { ConditionSchema, ResourceAmountsSchema } from '../schemas/common.js';
import type { PlayersSchema } from '../schemas/servers.js';

/** Amounts of CPU (thousandths of a core), memory and disk (bytes): what a Node offers and uses, what a server uses. */
export type ResourceAmounts = Static<typeof ResourceAmountsSchema>;

/**
 * A condition of a Node or a server as the API shows it: the Agent's report (the link's
 * `Condition`) plus where it came from.
 */
export type StatusCondition = Static<typeof ConditionSchema>;

/** Players online and the most a server takes, as its Server List Ping answered. */
export type Players = Static<typeof PlayersSchema>;
