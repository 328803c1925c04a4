import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

/** What each `/sign-in?error=` code the Controller's single sign-on callback sends means. */
const ssoErrors: Record<string, string> = {
  oidc_state: 'The single sign-on could not be matched to a sign-in started in this browser (it took too long, or came from elsewhere). Try again.',
  oidc_denied: 'The identity provider did not sign you in. Try again, or ask your administrator for access.',
  oidc_invalid_token: 'The identity provider\'s answer could not be verified, so you were not signed in. Try again; if it goes on, tell your administrator.',
};

/**
 * The sign-in page's single sign-on part: why the last attempt failed, and the button to the
 * provider when one is set up. A plain link: the sign-in is a chain of full-page redirects.
 */
export function SsoButton() {
  const [params] = useSearchParams();
  const methods = useQuery({ queryKey: queryKeys.sso.methods, queryFn: api.sso.methods, staleTime: 60_000 });
  const error = params.get('error');
  const oidc = methods.data?.oidc;
  return (
    <>
      {error ? <p role="alert" className="problem">{ssoErrors[error] ?? 'Single sign-on failed. Try again.'}</p> : null}
      {oidc ? (
        <p className="sso">
          <a className="button" href={oidc.loginUrl}>Sign in with {oidc.displayName}</a>
        </p>
      ) : null}
      {methods.data && !methods.data.password ? <p className="hint">Password sign-in is for global administrators only.</p> : null}
    </>
  );
}
