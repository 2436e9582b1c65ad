import { Skeleton } from '../../ui/Skeleton';

export function ChecksPage() {
  return <Skeleton lines={5} />;
}
