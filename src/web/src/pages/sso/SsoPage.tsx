import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { isProblem } from '../../api/problem';
import { queryKeys } from '../../api/query-keys';
import { useMe } from '../../app/session';
import { Loading } from '../../components/Loading';
import { ProblemAlert } from '../../components/ProblemAlert';
import { SsoForm } from './SsoForm';
import '../admin.css';

/** The single sign-on setting (global administrators); `null` in the cache while none is set. */
export function SsoPage() {
  const me = useMe();
  const admin = !!me.data?.globalAdmin;
  const setting = useQuery({
    queryKey: queryKeys.sso.setting,
    queryFn: () => api.sso.get().catch((e: unknown) => {
      if (isProblem(e) && e.status === 404) return null;
      throw e;
    }),
    enabled: admin,
  });
  return (
    <section>
      <h1>Single sign-on</h1>
      {!admin ? <p>Only global administrators set up single sign-on.</p> : (
        <>
          <ProblemAlert error={setting.error} />
          {setting.data === undefined ? (setting.error ? null : <Loading what="the single sign-on setting" />) : (
            <>
              <p>{setting.data ? <>Users may sign in with <strong>{setting.data.displayName}</strong>.</> : 'Single sign-on is not set up: everyone signs in with a password.'}</p>
              <SsoForm setting={setting.data ?? undefined} />
            </>
          )}
        </>
      )}
    </section>
  );
}
