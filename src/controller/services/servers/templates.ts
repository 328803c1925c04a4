import { paginate } from '../../domain/cursor.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';

/** The templates offered to every signed-in user; only what a client needs to choose one. */
export class TemplateService {
  constructor(readonly catalog: TemplateCatalog) {}

  async list(page: { limit: number; cursor?: string }) {
    const all = this.catalog.list();
    const result = await paginate<(typeof all)[number], string>(
      page,
      async (after, limit) => all.filter((t) => after === undefined || t.id > after).slice(0, limit),
      (t) => t.id,
    );
    return {
      ...result,
      items: result.items.map(({ id, name, description, kind, networkMember, platform, order, eula }) => {
        const sync = this.catalog.syncStateOf(id);
        return {
          id, name, ...(description ? { description } : {}), kind, networkMember, platform, versions: this.catalog.versionsOf(id).map((v) => v.version),
          ...(order !== undefined ? { order } : {}),
          ...(eula ? { eula } : {}),
          ...(sync ? { versionsFrom: sync.syncedAt ? 'UPSTREAM' as const : 'SNAPSHOT' as const, ...(sync.syncedAt ? { syncedAt: sync.syncedAt } : {}), ...(sync.error ? { syncError: sync.error } : {}) } : {}),
        };
      }),
    };
  }
}
