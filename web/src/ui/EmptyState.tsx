import type { ReactNode } from 'react';

/** What an empty screen says: what this is, and what to do next. */
export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="empty" aria-label={title}>
      <h2>{title}</h2>
      <div>{children}</div>
    </section>
  );
}
