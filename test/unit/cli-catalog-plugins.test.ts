import { expect } from 'chai';
import type { CatalogPluginDetail, CatalogPluginItem } from '../../src/cli/api-types.js';
import { resolvePlugins } from '../../src/cli/catalog-plugins.js';
import type { CliClient } from '../../src/cli/client.js';

const item = (id: string, slug: string) => ({ id, slug, name: slug, summary: `mentions ${slug}` }) as CatalogPluginItem;

/** A client that answers the catalog's search with `found` and any plugin's detail with one version. */
const catalog = (found: CatalogPluginItem[]) => ({
  all: async () => found,
  get: async (path: string) => ({ id: decodeURIComponent(path.split('/').pop()!), versions: [{ versionId: 'v1', version: '1.0' }] }) as CatalogPluginDetail,
}) as unknown as CliClient;

describe('cairn CLI: apply names catalog plugins by id or by slug', () => {
  it('a slug exactly one catalog plugin has becomes its id; a full id stays; a version becomes its catalog version', async () => {
    const client = catalog([item('sample:luckperms', 'luckperms'), item('sample:luckperms-extra', 'luckperms-extra')]);
    expect(await resolvePlugins(client, [{ pluginId: 'LuckPerms' }, { pluginId: 'other:x', version: '1.0' }])).to.deep.equal([
      { pluginId: 'sample:luckperms' }, { pluginId: 'other:x', version: { id: 'v1', label: '1.0' } },
    ]);
  });

  it('a slug two catalog plugins have is refused with both named; one none has is refused', async () => {
    const client = catalog([item('modrinth:abc', 'luckperms'), item('sample:luckperms', 'luckperms')]);
    let refusal: Error | undefined;
    await resolvePlugins(client, [{ pluginId: 'luckperms' }]).catch((e: unknown) => (refusal = e as Error));
    expect(refusal?.message).to.equal('plugin slug "luckperms" is ambiguous: modrinth:abc, sample:luckperms have it; name one by its id');
    await resolvePlugins(catalog([item('sample:vault', 'vaultapi')]), [{ pluginId: 'vault' }]).catch((e: unknown) => (refusal = e as Error));
    expect(refusal?.message).to.match(/^no catalog plugin has the slug "vault"/);
  });
});
