import type { Access } from '../identity/access.js';
import type { TeamService } from '../identity/teams.js';
import type { ServiceDeps } from '../deps.js';
import { NotificationSources, type EventFeeds } from './event-sources.js';
import { WebhookOutbox } from './webhook-outbox.js';
import { WebhookSender } from './webhook-sender.js';
import { WebhookService } from './webhooks.js';

export interface NotificationDeps {
  deps: ServiceDeps;
  access: Access;
  feeds: EventFeeds;
  teams: Pick<TeamService, 'deleted'>;
  /** `--allow-private-webhooks`: loopback, link-local and private addresses allowed. */
  allowPrivate: boolean;
}

/** Webhooks: their records, the outbox that delivers to them, and the event flow it hears. */
export function createNotificationServices(d: NotificationDeps) {
  const sender = new WebhookSender(d.allowPrivate);
  // Several Controllers: the one sending looks for the deliveries the others stored each second.
  const outbox = new WebhookOutbox(d.deps, sender, d.deps.repos.kind === 'embedded' ? undefined : 1000);
  const sources = new NotificationSources(d.deps, d.feeds, outbox);
  const webhooks = new WebhookService(d.deps, d.access, outbox, d.allowPrivate);
  let offTeams: (() => void) | undefined;
  return {
    webhooks,
    outbox,
    /** Listening before the Agents connect; deliveries are tried where the job runs. */
    async start(): Promise<void> {
      offTeams = d.teams.deleted.add((teamId) => {
        webhooks.removeOfTeam(teamId).catch((err: unknown) => d.deps.logger.error({ err, teamId }, 'the webhooks of a deleted team could not be removed'));
      });
      await sources.start();
    },
    /** The fleet-wide job of sending: the deliveries left PENDING tried again, then each new one. */
    job: { start: () => outbox.resume(), stop: () => Promise.resolve(outbox.stop()) },
    async stop(): Promise<void> {
      offTeams?.();
      sources.stop();
      outbox.stop();
      await sender.close();
    },
  };
}
