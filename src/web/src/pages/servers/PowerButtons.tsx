import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { rememberServer } from '../../api/server-cache';
import type { ServerDetail } from '../../api/types';
import { ProblemAlert } from '../../components/ProblemAlert';
import { useEulaGate } from './EulaGate';
import { installFailed, powerAllowed, startBlockedReason, type PowerVerb } from './power-rules';

const verbs: [PowerVerb, string][] = [['start', 'Start'], ['stop', 'Stop'], ['restart', 'Restart']];

/** Retry install: offered for a failed install; the API refuses it (and says why) when something is installed. */
function RetryInstall({ server }: { server: ServerDetail }) {
  const client = useQueryClient();
  const retry = useMutation({ mutationFn: () => api.servers.reinstall(server.id), onSuccess: (detail) => rememberServer(client, detail) });
  return (
    <>
      <button type="button" className="primary" disabled={retry.isPending} onClick={() => retry.mutate()}>
        {retry.isPending ? 'Retrying install…' : 'Retry install'}
      </button>
      <ProblemAlert error={retry.error} />
    </>
  );
}

/** Start, Stop, Restart; a disabled Start says why next to it, and a failed server offers its way out. */
export function PowerButtons({ server }: { server: ServerDetail }) {
  const client = useQueryClient();
  const power = useMutation({
    mutationFn: (verb: PowerVerb) => api.servers.power(server.id, verb),
    onSuccess: (detail) => rememberServer(client, detail),
  });
  const eula = useEulaGate(server, () => power.mutate('start'));
  const state = { ...server, runtimeState: server.status.runtimeState };
  const blocked = startBlockedReason(state);
  return (
    <div className="power">
      <div className="actions" role="group" aria-label="Power">
        {verbs.map(([verb, label]) => (
          <button key={verb} type="button" className={verb === 'start' ? 'primary' : undefined}
            aria-describedby={verb === 'start' && blocked ? 'start-blocked' : undefined}
            disabled={power.isPending || eula.pending || !powerAllowed(state, verb)} onClick={() => (verb === 'start' ? eula.start() : power.mutate(verb))}>
            {power.isPending && power.variables === verb ? `${label}…` : label}
          </button>
        ))}
        {installFailed(server) ? <RetryInstall server={server} /> : null}
      </div>
      {blocked ? <p className="hint" id="start-blocked">{blocked}</p> : null}
      <ProblemAlert error={power.error ?? eula.problem} />
      {eula.dialog}
    </div>
  );
}
