import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { useAllUsers } from '../../api/reference-data';
import type { AuditEvent, User } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { Loading } from '../../components/Loading';
import { Pager, useCursorPager } from '../../components/Pager';
import { formatTime } from '../../format/units';
import { FormProblem } from '../../components/FormProblem';
import '../admin.css';
import { AuditFilterForm } from './AuditFilterForm';
import { AuditDetails } from './AuditDetails';
import { AuditTarget, useTargetNames } from './AuditTarget';
import { filterNames, filtersFrom, paramsOf, queryOf, type AuditFilters } from './audit-filters';

const outcomeClass = { SUCCESS: 'state good', DENIED: 'state bad', FAILED: 'state busy' } as const;

function actor(e: AuditEvent, users: Map<string, User>): string {
  const name = e.actorUserId ? (users.get(e.actorUserId)?.username ?? e.actorUserId) : 'Unknown user';
  if (e.actorKind === 'USER') return name;
  if (e.actorKind === 'API_TOKEN') return `${name} (API token)`;
  return e.actorKind === 'AGENT' ? 'An Agent' : 'Cairn';
}

export function AuditPage() {
  const [params, setParams] = useSearchParams();
  const applied = useMemo(() => filtersFrom(params), [params]);
  const query = useMemo(() => queryOf(applied), [applied]);
  const pager = useCursorPager();
  const events = useQuery({ queryKey: queryKeys.audit({ ...query, cursor: pager.cursor }), queryFn: () => api.audit.search({ ...query, cursor: pager.cursor }) });
  // Names for actor ids and the actor picker; without it the picker is a user-id field.
  const users = useAllUsers();
  const usersById = useMemo(() => new Map((users.data ?? []).map((u) => [u.id, u])), [users.data]);
  const targetName = useTargetNames(users.data);
  const apply = (filters: AuditFilters) => {
    pager.reset();
    setParams(paramsOf(filters));
  };

  const columns: Column<AuditEvent>[] = [
    { header: 'Time', essential: true, cell: (e) => <time dateTime={e.occurredAt} className="nowrap">{formatTime(e.occurredAt)}</time> },
    { header: 'Actor', cell: (e) => actor(e, usersById) },
    { header: 'Action', essential: true, cell: (e) => <code>{e.action}</code> },
    { header: 'Target', cell: (e) => <AuditTarget event={e} name={targetName(e.targetKind, e.targetId)} /> },
    { header: 'Outcome', essential: true, cell: (e) => <span className={outcomeClass[e.outcome]}>{e.outcome}</span> },
    { header: 'Details', cell: (e) => <AuditDetails details={e.details} name={targetName} /> },
  ];

  return (
    <section className="audit-page">
      <h1>Audit log</h1>
      <p className="lede">Every state-changing request, allowed or refused, newest first.</p>
      <AuditFilterForm key={params.toString()} initial={applied} onApply={apply} error={events.error} users={users.data} />
      <FormProblem error={events.error} fields={filterNames} />
      {events.data ? <DataTable caption="Audit events" columns={columns} rows={events.data.items} rowKey={(e) => String(e.id)} empty="No events match." /> : events.error ? null : <Loading what="the audit log" />}
      <Pager pager={pager} nextCursor={events.data?.nextCursor} label="Audit log pages" />
    </section>
  );
}
