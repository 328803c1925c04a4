import type { Static } from 'typebox';
import type { UsageQuery } from '../schemas/usage.js';

/** How far back a server's usage is asked for: 10m, 1h, 6h or 24h. */
export type UsageWindowName = NonNullable<Static<typeof UsageQuery>['window']>;
