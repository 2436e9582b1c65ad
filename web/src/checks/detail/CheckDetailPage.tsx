import { Skeleton } from '../../ui/Skeleton';

export function CheckDetailPage() {
  return <Skeleton lines={5} />;
}
