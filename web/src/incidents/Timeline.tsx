import { Skeleton } from '../ui/Skeleton';
import { useWorkspace } from '../workspace/context';
import { useTimeline, type Incident, type IncidentEvent } from './api';
import { When } from './IncidentBadges';

/** Each kind of entry with a shape and words: ALERT_SENT says who was told, its message the channel and recipient. */
const KIND: Record<IncidentEvent['type'], { icon: string; label: string }> = {
  OPENED: { icon: '●', label: 'Opened' },
  SEVERITY_CHANGED: { icon: '▲', label: 'Severity changed' },
  ALERT_SENT: { icon: '✉', label: 'Alert sent' },
  ESCALATED: { icon: '⇧', label: 'Escalated' },
  ACKNOWLEDGED: { icon: '✔', label: 'Acknowledged' },
  MONITORING: { icon: '◔', label: 'Monitoring' },
  RESOLVED: { icon: '✓', label: 'Resolved' },
};

/** The immutable timeline, oldest first; live events make it refetch (see web/src/live). */
export function Timeline({ incident }: { incident: Incident }) {
  const timeline = useTimeline(incident.id);
  const { me } = useWorkspace();
  const actor = (event: IncidentEvent): string | null => {
    if (event.actorUserId !== null) {
      if (event.actorUserId === me?.id) return 'you';
      if (event.actorUserId === incident.acknowledgedByUser?.id) return incident.acknowledgedByUser.email;
      return `user ${event.actorUserId}`;
    }
    return event.actorApiKeyId !== null ? 'an API key' : null;
  };
  return (
    <section aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      {timeline.isPending ? (
        <Skeleton label="Loading the timeline" lines={4} />
      ) : timeline.isError ? (
        <p className="form-error" role="alert">
          The timeline could not be loaded: {timeline.error.message}
        </p>
      ) : (
        <ol className="timeline">
          {timeline.data.map((event) => {
            const kind = KIND[event.type];
            const who = actor(event);
            return (
              <li key={event.id} className={`timeline-${event.type.toLowerCase()}`} data-event={event.type}>
                <span className="timeline-icon" aria-hidden="true">
                  {kind.icon}
                </span>
                <div>
                  <strong>{kind.label}</strong> <When iso={event.occurredAt} />
                  {who ? <span className="muted"> by {who}</span> : null}
                  {event.message ? <p className="timeline-message">{event.message}</p> : null}
                </div>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
