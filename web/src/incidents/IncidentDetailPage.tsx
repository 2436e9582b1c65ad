import { useParams } from 'react-router-dom';
import { EmptyState } from '../ui/EmptyState';

/** Placeholder: the incidents helper replaces it (timeline, acknowledge, resolve, notes). */
export function IncidentDetailPage() {
  const { id } = useParams();
  return (
    <>
      <h1>Incident {id}</h1>
      <EmptyState title="Incident detail is on its way">This screen is being built.</EmptyState>
    </>
  );
}
