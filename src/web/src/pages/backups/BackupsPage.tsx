import { ComingSoon } from '../../components/ComingSoon';

export function BackupsPage() {
  return (
    <ComingSoon title="Backups">
      <p>Backups come with their own issue: destinations (a Node directory or object storage), schedules, on-demand backups of a server and restores, each with its progress shown here.</p>
    </ComingSoon>
  );
}
