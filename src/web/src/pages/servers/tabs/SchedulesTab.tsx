import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import type { ServerDetail } from '../../../api/types';
import { Loading } from '../../../components/Loading';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useDestinations } from '../../backups/use-destinations';
import { EditScheduleForm } from '../schedules/EditScheduleForm';
import { NewScheduleForm } from '../schedules/NewScheduleForm';
import { ScheduleRuns } from '../schedules/ScheduleRuns';
import { ScheduleTable } from '../schedules/ScheduleTable';
import '../../admin.css';
import '../schedules/schedules.css';

/** While a run goes on its result is read every 2 s; otherwise twice a minute, so next runs and last results stay current. */
const runningPollMs = 2_000;
const idlePollMs = 30_000;

/** The server's tasks on a clock: its schedules with their next run and last result, the Edit form or the runs of one, and the New schedule form. */
export function SchedulesTab({ server }: { server: ServerDetail }) {
  const { destinations } = useDestinations();
  const [shownRuns, setShownRuns] = useState<string>();
  const [editing, setEditing] = useState<string>();
  const [saved, setSaved] = useState<string>();
  const schedules = useQuery({
    queryKey: queryKeys.schedules.ofServer(server.id),
    queryFn: () => api.schedules.ofServer(server.id, { limit: 200 }),
    refetchInterval: (query) => (query.state.data?.items.some((s) => s.lastRun?.result === 'RUNNING') ? runningPollMs : idlePollMs),
  });
  const shown = schedules.data?.items.find((s) => s.id === shownRuns);
  const edited = schedules.data?.items.find((s) => s.id === editing);
  const edit = (id: string | undefined) => {
    setSaved(undefined);
    setEditing(id);
  };
  return (
    <div>
      <section aria-labelledby="server-task-schedules-heading">
        <h2 id="server-task-schedules-heading">Schedules</h2>
        <p className="hint">Tasks on a clock: commands, restarts with a warning to the players, backups. Backups alone can also be scheduled on the Backups tab.</p>
        <ProblemAlert error={schedules.error} />
        {schedules.isPending ? <Loading what="schedules" /> : (
          <ScheduleTable caption={`Schedules of ${server.name}`} schedules={schedules.data?.items} shownRuns={shownRuns} onShowRuns={setShownRuns} editing={editing} onEdit={edit} />
        )}
        {saved ? <p role="status" className="success">Schedule {saved} saved.</p> : null}
        {edited ? (
          <EditScheduleForm key={`edit-${edited.id}`} schedule={edited} serverName={server.name} destinations={destinations.data}
            onClose={(done) => { setEditing(undefined); setSaved(done?.name); }} />
        ) : null}
        {shown ? <ScheduleRuns key={shown.id} schedule={shown} /> : null}
      </section>
      <NewScheduleForm server={server} destinations={destinations.data} />
    </div>
  );
}
