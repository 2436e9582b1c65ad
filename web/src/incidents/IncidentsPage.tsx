import { EmptyState } from '../ui/EmptyState';

/** Placeholder: the incidents helper replaces this folder's screens (list by project, active and resolved). */
export function IncidentsPage() {
  return (
    <>
      <h1>Incidents</h1>
      <EmptyState title="Incidents are on their way">This screen is being built. Open a check to see its incidents.</EmptyState>
    </>
  );
}
