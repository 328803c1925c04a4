import { useRef, type KeyboardEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useTemplates } from '../../api/reference-data';
import type { ServerDetail } from '../../api/types';
import { SoftwareCard } from './software/SoftwareCard';
import { BackupsTab } from './tabs/BackupsTab';
import { ConsoleTab } from './tabs/ConsoleTab';
import { FilesTab } from './tabs/FilesTab';
import { PluginsTab } from './tabs/PluginsTab';
import { PropertiesTab } from './tabs/PropertiesTab';
import { SchedulesTab } from './tabs/SchedulesTab';
import { SettingsTab } from './tabs/SettingsTab';

const allTabs = [
  ['console', 'Console', ConsoleTab],
  ['files', 'Files', FilesTab],
  ['properties', 'Properties', PropertiesTab],
  ['plugins', 'Plugins', PluginsTab],
  ['backups', 'Backups', BackupsTab],
  ['schedules', 'Schedules', SchedulesTab],
  // The contract's tabs keep their order; the software and its update have a tab of their own, so the console comes first.
  ['software', 'Software', SoftwareCard],
  ['settings', 'Settings', SettingsTab],
] as const;

/** Mojang's own server (platform `vanilla`) loads no plugins: its servers get no Plugins tab. */
const platformsWithoutPlugins = new Set(['vanilla']);

/**
 * The server's tabs, one address each (`/servers/<id>/files`), with the ARIA tabs pattern:
 * arrow keys, Home and End move between tabs.
 */
export function ServerTabs({ server }: { server: ServerDetail }) {
  const { tab = 'console' } = useParams();
  const navigate = useNavigate();
  const refs = useRef<(HTMLAnchorElement | null)[]>([]);
  const platform = useTemplates().data?.find((t) => t.id === server.software.template)?.platform;
  const tabs = allTabs.filter(([tabId]) => tabId !== 'plugins' || platform === undefined || !platformsWithoutPlugins.has(platform));
  const current = Math.max(0, tabs.findIndex(([id]) => id === tab));
  const [id, , Panel] = tabs[current];
  const onKeyDown = (e: KeyboardEvent) => {
    const next = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    const index = (next + tabs.length) % tabs.length;
    void navigate(`/servers/${server.id}/${tabs[index][0]}`, { replace: true });
    refs.current[index]?.focus();
  };
  return (
    <>
      <div role="tablist" aria-label="Server sections" onKeyDown={onKeyDown}>
        {tabs.map(([tabId, label], i) => (
          <Link key={tabId} ref={(el) => { refs.current[i] = el; }} role="tab" id={`tab-${tabId}`} aria-selected={i === current} aria-controls={`panel-${tabId}`}
            tabIndex={i === current ? 0 : -1} to={`/servers/${server.id}/${tabId}`} replace>
            {label}
          </Link>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${id}`} aria-labelledby={`tab-${id}`}>
        <Panel server={server} />
      </div>
    </>
  );
}
