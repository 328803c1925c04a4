import type { Node } from '../../api/types';

/** 1500 → "1.5 CPU": the capacity bars' unit (the API counts thousandths of a core). */
export const formatCores = (cpuMillis: number) => `${Number((cpuMillis / 1000).toFixed(3))} CPU`;

const adminTone: Record<Node['adminState'], string> = { ENABLED: 'good', DISABLED: 'busy', REVOKED: 'bad' };
const connectionTone: Record<Node['status']['connectionState'], string> = {
  HEALTHY: 'good', AWAITING_ENROLLMENT: 'busy', DEGRADED: 'busy', UNREACHABLE: 'bad',
};

/** The `.state` class of an admin or connection state: the enum value stays the text. */
export const adminStateClass = (state: Node['adminState']) => `state ${adminTone[state]}`;
export const connectionStateClass = (state: Node['status']['connectionState']) => `state ${connectionTone[state]}`;
