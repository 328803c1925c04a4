import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { useMe } from '../../app/session';
import { Loading } from '../../components/Loading';
import { ProblemAlert } from '../../components/ProblemAlert';
import { useServerWatch } from '../servers/use-server-watch';
import { AdmittedTeams } from './AdmittedTeams';
import { NetworkMembers } from './NetworkMembers';
import { NetworkSettingsForm } from './NetworkSettingsForm';
import { NewProxyForm } from './NewProxyForm';
import { ProxyStatus } from './ProxyStatus';
import '../admin.css';

/** Where players connect, the proxy, the members with their routes, and the lobby. Changes are for global administrators. */
export function NetworkPage() {
  const network = useQuery({ queryKey: queryKeys.network.record, queryFn: api.network.get });
  const me = useMe();
  useServerWatch();
  const admin = !!me.data?.globalAdmin;
  const n = network.data;
  return (
    <section>
      <h1>Network</h1>
      <ProblemAlert error={network.error} />
      {!n ? (network.error ? null : <Loading what="the network" />) : (
        <>
          <p>Players connect to <strong>{n.name}</strong> at <code>{n.address}:{n.port}</code>.</p>
          {n.description ? <p className="hint">{n.description}</p> : null}
          {admin ? <NetworkSettingsForm network={n} /> : null}
          <section className="card" aria-labelledby="proxy-heading">
            <h2 id="proxy-heading">Proxy</h2>
            {n.proxyServerId ? <ProxyStatus proxyId={n.proxyServerId} /> : admin ? <NewProxyForm /> : <p>The network has no proxy yet; a global administrator creates it.</p>}
          </section>
          <AdmittedTeams network={n} admin={admin} />
          <NetworkMembers network={n} admin={admin} />
        </>
      )}
    </section>
  );
}
