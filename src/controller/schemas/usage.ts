import Type from 'typebox';
import { DateTime, Int64 } from './common.js';

export const usageWindows = ['10m', '1h', '6h', '24h'] as const;

export const UsageQuery = Type.Object({
  window: Type.Optional(Type.Enum(usageWindows, { default: '1h', description: 'How far back: 10m and 1h give a sample per 10 s, 6h and 24h one per minute.' })),
}, { additionalProperties: false });

export const UsageSampleSchema = Type.Object({
  at: DateTime,
  cpuMillis: Type.Integer({ minimum: 0, description: 'CPU in thousandths of a core (a per-minute sample: the mean of its six).' }),
  memoryBytes: Int64,
  playersOnline: Type.Optional(Type.Integer({ minimum: 0, description: 'Absent when the server did not answer its ping.' })),
});

export const ServerUsage = Type.Object({
  window: Type.Enum(usageWindows),
  intervalSeconds: Type.Integer({ minimum: 1, description: 'The time between two samples of this window.' }),
  items: Type.Array(UsageSampleSchema, { description: 'Oldest first; only times the server was running on its Node have samples (the gaps are the rest).' }),
}, {
  description: 'Kept by the server\'s Agent in memory (the Controller keeps none): lost when the Agent restarts, and left behind on the old Node by a migration.',
});
