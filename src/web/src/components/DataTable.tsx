import type { ReactNode } from 'react';

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  /** Kept on a phone's narrow screen; others collapse (CSS class `wide-only`). */
  essential?: boolean;
}

interface DataTableProps<T> {
  caption: string;
  columns: Column<T>[];
  rows: T[] | undefined;
  rowKey: (row: T) => string;
  empty: ReactNode;
}

/** A plain, accessible table with a caption; it scrolls sideways on a narrow screen. */
export function DataTable<T>({ caption, columns, rows, rowKey, empty }: DataTableProps<T>) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>{columns.map((c) => <th key={c.header} scope="col" className={c.essential ? undefined : 'wide-only'}>{c.header}</th>)}</tr>
        </thead>
        <tbody>
          {rows?.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => <td key={c.header} className={c.essential ? undefined : 'wide-only'}>{c.cell(row)}</td>)}
            </tr>
          ))}
          {rows && rows.length === 0 ? <tr><td colSpan={columns.length} className="empty">{empty}</td></tr> : null}
        </tbody>
      </table>
    </div>
  );
}
