import type { AgentLink } from '../../api/types';
import { CopyField } from '../../components/CopyField';

const loopbackHosts = new Set(['127.0.0.1', '::1', '[::1]', 'localhost']);
export const isLoopback = (host: string | undefined) => host !== undefined && (loopbackHosts.has(host) || host.startsWith('127.'));

const docs = 'https://github.com/cairn-hosting/cairn/blob/main/docs/operations.md#several-hosts';
/** How the README and docs/operations.md install Cairn on a host: the Agent comes with the checkout. */
const installCommand = 'git clone https://github.com/cairn-hosting/cairn /opt/cairn && cd /opt/cairn && npm ci && npm run build && npm link';

/**
 * Whether an Agent on another host can dial the address in the command, and how to get
 * cairn-agent there: a Controller on loopback (the default) is reachable only from its own host.
 */
export function AgentReach({ link }: { link: AgentLink }) {
  return (
    <>
      {isLoopback(link.host) ? (
        <p className="warning" role="note" aria-label="Reaching the Controller">
          The Controller&apos;s Agent link listens on <code>{link.host}</code>, the loopback address: this command works only on the
          Controller&apos;s own host. For an Agent on another host, restart the Controller with <code>--host 0.0.0.0</code> (or{' '}
          <code>CAIRN_HOST</code>) and a certificate (<code>--tls-cert</code>, <code>--tls-key</code>); the command then names the
          address this page was opened at. <a href={docs} target="_blank" rel="noreferrer">Steps: Several hosts</a>.
        </p>
      ) : null}
      <CopyField label="Install cairn-agent on another host" value={installCommand} />
      <p className="hint">Needs Node.js 20.19 or later and git on that host; <code>npm link</code> puts <code>cairn-agent</code> on its PATH.</p>
    </>
  );
}
