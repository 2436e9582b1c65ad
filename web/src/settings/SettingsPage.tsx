import { Skeleton } from '../ui/Skeleton';
import { useAccess } from '../ui/permission';
import { ApiKeysSection } from './ApiKeysSection';
import { MembersSection } from './MembersSection';
import { PlanSection } from './PlanSection';
import { ProfileSection } from './ProfileSection';

/** The workspace's settings (members, keys, plan) and your own profile, on one page. */
export function SettingsPage() {
  const { workspaceId, role } = useAccess();
  return (
    <>
      <h1>Settings</h1>
      {workspaceId === null ? (
        <Skeleton label="Loading settings" lines={6} />
      ) : (
        <>
          <p className="muted">Your role in this workspace: {role}.</p>
          <MembersSection workspaceId={workspaceId} />
          <ApiKeysSection workspaceId={workspaceId} />
          <PlanSection workspaceId={workspaceId} />
        </>
      )}
      <ProfileSection />
    </>
  );
}
