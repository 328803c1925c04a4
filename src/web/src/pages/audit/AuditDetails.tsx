import { detailIdKind, detailPairs } from './audit-filters';

/** An event's details as `key=value` pairs; an id the UI can name shows the name, the id in its title. */
export function AuditDetails({ details, name }: { details: Record<string, unknown>; name: (kind: string, id: string) => string | undefined }) {
  const pairs = detailPairs(details);
  if (pairs.length === 0) return <>—</>;
  return (
    <dl className="audit-details">
      {pairs.map(([key, value]) => {
        const kind = detailIdKind(key);
        const named = kind ? name(kind, value) : undefined;
        return <div key={key}><dt>{key}</dt><dd title={named ? value : undefined}>{named ?? value}</dd></div>;
      })}
    </dl>
  );
}
