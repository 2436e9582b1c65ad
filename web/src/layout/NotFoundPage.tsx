import { Link } from 'react-router-dom';
import { EmptyState } from '../ui/EmptyState';

export function NotFoundPage() {
  return (
    <EmptyState title="Page not found">
      Nothing lives at this address. Go to your <Link to="/checks">checks</Link>.
    </EmptyState>
  );
}
