import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { Field } from '../ui/Field';
import { explainError } from '../ui/permission';
import { useToast } from '../ui/toast';
import { useWorkspace } from '../workspace/context';
import { useUpdateSchedule, type Member, type RotationInput, type Schedule } from './api';
import { RotationFields, toRotationInput, type RotationDraft } from './RotationFields';
import { isTimeZone, localInput, todayIn } from './zoned';

let nextKey = 1;

const draftOf = (rotation: Schedule['rotations'][number], timezone: string): RotationDraft => ({
  key: nextKey++,
  name: rotation.name ?? '',
  type: rotation.type,
  layerPosition: rotation.layerPosition,
  effectiveFrom: localInput(Date.parse(rotation.effectiveFrom), timezone),
  effectiveUntil: rotation.effectiveUntil === null ? '' : localInput(Date.parse(rotation.effectiveUntil), timezone),
  handoffTime: rotation.handoffTime.slice(0, 5),
  handoffDay: rotation.handoffDay,
  customShiftHours: rotation.customShiftHours ?? 12,
  userIds: [...rotation.participants].sort((a, b) => a.position - b.position).map((p) => p.userId),
});

/**
 * The schedule's zone and its rotations, edited together and saved at once (the API replaces
 * every rotation with the array sent). Instants are typed in the schedule's zone; changing the
 * zone keeps the wall-clock times as typed, which is what a person moving a team's zone means.
 */
export function RotationsEditor({ schedule, members, onClose }: { schedule: Schedule; members: readonly Member[]; onClose: () => void }) {
  const { role } = useWorkspace();
  const toast = useToast();
  const update = useUpdateSchedule(schedule.id);
  const [timezone, setTimezone] = useState(schedule.timezone);
  const [drafts, setDrafts] = useState<RotationDraft[]>(() => schedule.rotations.map((r) => draftOf(r, schedule.timezone)));
  const [error, setError] = useState<string | null>(null);
  const zone = isTimeZone(timezone) ? timezone : schedule.timezone;
  const fields = update.error instanceof ApiError ? update.error.fieldErrors() : {};

  const add = () =>
    setDrafts([
      ...drafts,
      {
        key: nextKey++,
        name: '',
        type: 'weekly',
        layerPosition: drafts.length,
        effectiveFrom: `${todayIn(zone)}T09:00`,
        effectiveUntil: '',
        handoffTime: '09:00',
        handoffDay: 1,
        customShiftHours: 12,
        userIds: [],
      },
    ]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!isTimeZone(timezone)) return setError('The time zone must be an IANA name such as Europe/Berlin.');
    const rotations: RotationInput[] = [];
    for (const draft of drafts) {
      const input = toRotationInput(draft, timezone);
      if (input === null) return setError(`Give “${draft.name || 'each rotation'}” a start date and time.`);
      rotations.push(input);
    }
    setError(null);
    update.mutate(
      { timezone, rotations },
      {
        onSuccess: () => {
          toast({ title: 'Rotations saved' });
          onClose();
        },
        onError: (err) => setError(explainError(err, role)),
      },
    );
  };
  return (
    <form className="rotations-editor" aria-label="Edit rotations" onSubmit={submit} noValidate>
      <Field label="Time zone" hint="IANA name; handoffs follow its daylight-saving changes." error={fields.timezone}>
        {(aria) => <input {...aria} name="timezone" value={timezone} onChange={(e) => setTimezone(e.target.value)} />}
      </Field>
      {drafts.map((draft, i) => (
        <RotationFields
          key={draft.key}
          index={i}
          draft={draft}
          timezone={zone}
          members={members}
          errors={fields}
          onChange={(next) => setDrafts(drafts.map((d) => (d.key === draft.key ? next : d)))}
          onRemove={() => setDrafts(drafts.filter((d) => d.key !== draft.key))}
        />
      ))}
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="button-row">
        <button type="button" className="button" onClick={add}>
          Add a rotation
        </button>
        <button type="submit" className="button primary" disabled={update.isPending}>
          Save rotations
        </button>
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
