import type { Repositories } from '../../store/repositories.js';

/** Finished deliveries kept per webhook, newest first: enough to see what went wrong, never a growing log. */
export const keptFinishedDeliveries = 100;

/** Deletes a webhook's finished deliveries beyond the newest `keptFinishedDeliveries`; PENDING ones always stay. */
export async function pruneFinished(repos: Repositories, webhookId: string): Promise<void> {
  const finished = { webhookId, state: { $ne: 'PENDING' } };
  const newest = await repos.webhookDeliveries.find(finished, { sort: { _id: -1 }, limit: keptFinishedDeliveries + 1 });
  if (newest.length <= keptFinishedDeliveries) return;
  await repos.webhookDeliveries.delete({ ...finished, _id: { $lte: newest[keptFinishedDeliveries]._id } });
}
