import { Skeleton } from '../../ui/Skeleton';

export function CheckFormPage() {
  return <Skeleton lines={5} />;
}
