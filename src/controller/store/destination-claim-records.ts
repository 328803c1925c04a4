/**
 * A Controller's claim on a shared backup destination: WRITE while a backup stores blobs into it,
 * COLLECT while its garbage is collected (services/backups/destination-claims.ts).
 */
export interface DestinationClaimDoc {
  _id: string;
  destinationId: string;
  kind: 'WRITE' | 'COLLECT';
  controllerId: string;
  since: string;
}
