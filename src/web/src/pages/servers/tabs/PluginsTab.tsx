import type { ServerDetail } from '../../../api/types';
import { CatalogSearch } from './CatalogSearch';
import { InstalledPlugins } from './InstalledPlugins';

/** Installed plugins (update, remove, upload a jar) and the catalog to install from. */
export function PluginsTab({ server }: { server: ServerDetail }) {
  return (
    <div>
      <p className="notice">Plugin changes take effect at the server's next start.</p>
      <InstalledPlugins server={server} />
      <CatalogSearch server={server} />
    </div>
  );
}
