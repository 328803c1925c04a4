import { useAllServers } from '../../api/reference-data';
import { ProblemAlert } from '../../components/ProblemAlert';
import { AllBackups } from './AllBackups';
import { AllSchedules } from './AllSchedules';
import { DestinationsSection } from './DestinationsSection';
import { useDestinations } from './use-destinations';
import '../admin.css';

/** Destinations (global administrators), every schedule, and every backup the caller may read. */
export function BackupsPage() {
  const { admin, destinations } = useDestinations();
  const servers = useAllServers();
  return (
    <section>
      <h1>Backups</h1>
      <p className="lede">
        Take a backup or restore one on a server's Backups tab. {admin ? null : 'Backups go to the Controller\'s default destination, controller.'}
      </p>
      <ProblemAlert error={servers.error} />
      {admin ? <DestinationsSection destinations={destinations} /> : null}
      <AllSchedules servers={servers.data} destinations={destinations.data} />
      <AllBackups servers={servers.data} destinations={destinations.data} />
    </section>
  );
}
