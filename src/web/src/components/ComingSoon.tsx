import type { ReactNode } from 'react';

/** A page for a capability that comes with its own issue: says what it will do. */
export function ComingSoon({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section>
      <h1>{title}</h1>
      <div className="notice">{children}</div>
    </section>
  );
}
