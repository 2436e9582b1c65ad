import { useMemo } from 'react';
import { turnSource } from '../../../core/oncall/turns';
import { Field } from '../ui/Field';
import { personName, type Member, type RotationInput } from './api';
import { formatIn } from '../ui/time';
import { instantOfLocal } from './zoned';

/** A rotation as edited: instants as datetime-local text in the schedule's zone. */
export type RotationDraft = {
  key: number;
  name: string;
  type: RotationInput['type'];
  layerPosition: number;
  effectiveFrom: string;
  effectiveUntil: string;
  handoffTime: string;
  handoffDay: number;
  customShiftHours: number;
  userIds: number[];
};

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const PREVIEW_HANDOFFS = 6;

/** The API's rotation body for a draft, or null while an instant is incomplete. */
export function toRotationInput(draft: RotationDraft, timezone: string): RotationInput | null {
  const from = instantOfLocal(draft.effectiveFrom, timezone);
  if (from === null) return null;
  const until = draft.effectiveUntil.trim() === '' ? null : instantOfLocal(draft.effectiveUntil, timezone);
  return {
    name: draft.name.trim() === '' ? null : draft.name.trim(),
    type: draft.type,
    layerPosition: draft.layerPosition,
    effectiveFrom: from,
    effectiveUntil: until,
    handoffTime: draft.handoffTime,
    handoffDay: draft.handoffDay,
    customShiftHours: draft.type === 'custom' ? draft.customShiftHours : null,
    participants: draft.userIds.map((userId, position) => ({ userId, position })),
  };
}

type Props = {
  draft: RotationDraft;
  timezone: string;
  members: readonly Member[];
  errors: Record<string, string>;
  index: number;
  onChange: (draft: RotationDraft) => void;
  onRemove: () => void;
};

/** One rotation's fields, its participants in turn order, and its next handoffs in the schedule's zone. */
export function RotationFields({ draft, timezone, members, errors, index, onChange, onRemove }: Props) {
  const set = (fields: Partial<RotationDraft>) => onChange({ ...draft, ...fields });
  const err = (field: string) => errors[`rotations.${index}.${field}`];
  const available = members.filter((m) => !draft.userIds.includes(m.userId));
  const move = (from: number, to: number) => {
    const userIds = [...draft.userIds];
    const [moved] = userIds.splice(from, 1);
    if (moved === undefined || to < 0 || to > userIds.length) return;
    userIds.splice(to, 0, moved);
    set({ userIds });
  };
  const title = draft.name.trim() === '' ? `Rotation ${index + 1}` : draft.name;
  return (
    <fieldset className="rotation" data-rotation={index}>
      <legend>{title}</legend>
      <div className="two-col">
        <Field label="Name" error={err('name')}>
          {(aria) => <input {...aria} name="rotationName" value={draft.name} onChange={(e) => set({ name: e.target.value })} />}
        </Field>
        <Field label="Layer" hint="1 is the highest: it wins where layers overlap." error={err('layerPosition')}>
          {(aria) => (
            <input
              {...aria}
              type="number"
              name="layer"
              min={1}
              max={20}
              value={draft.layerPosition + 1}
              onChange={(e) => set({ layerPosition: Math.max(0, Number(e.target.value) - 1) })}
            />
          )}
        </Field>
        <Field label="Shifts" error={err('type')}>
          {(aria) => (
            <select {...aria} name="type" value={draft.type} onChange={(e) => set({ type: e.target.value as RotationDraft['type'] })}>
              <option value="daily">Daily</option>
              <option value="weekly">Weekly</option>
              <option value="custom">Custom length</option>
            </select>
          )}
        </Field>
        {draft.type === 'custom' ? (
          <Field label="Hours per shift" error={err('customShiftHours')}>
            {(aria) => (
              <input
                {...aria}
                type="number"
                name="customShiftHours"
                min={1}
                max={8784}
                value={draft.customShiftHours}
                onChange={(e) => set({ customShiftHours: Number(e.target.value) })}
              />
            )}
          </Field>
        ) : (
          <Field label={`Handoff time (${timezone})`} error={err('handoffTime')}>
            {(aria) => <input {...aria} type="time" name="handoffTime" value={draft.handoffTime} onChange={(e) => set({ handoffTime: e.target.value })} required />}
          </Field>
        )}
        {draft.type === 'weekly' ? (
          <Field label="Handoff day" error={err('handoffDay')}>
            {(aria) => (
              <select {...aria} name="handoffDay" value={draft.handoffDay} onChange={(e) => set({ handoffDay: Number(e.target.value) })}>
                {DAYS.map((day, i) => (
                  <option key={day} value={i + 1}>
                    {day}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : null}
        <Field label={`Starts (${timezone})`} error={err('effectiveFrom')}>
          {(aria) => <input {...aria} type="datetime-local" name="effectiveFrom" value={draft.effectiveFrom} onChange={(e) => set({ effectiveFrom: e.target.value })} required />}
        </Field>
        <Field label={`Ends (${timezone}, optional)`} error={err('effectiveUntil')}>
          {(aria) => <input {...aria} type="datetime-local" name="effectiveUntil" value={draft.effectiveUntil} onChange={(e) => set({ effectiveUntil: e.target.value })} />}
        </Field>
      </div>
      <div>
        <h3 className="small-heading">Participants, in turn order</h3>
        {draft.userIds.length === 0 ? <p className="field-hint">Nobody yet: this layer covers no time.</p> : null}
        <ol className="participants">
          {draft.userIds.map((userId, i) => (
            <li key={userId}>
              <span>{personName(members, userId)}</span>
              <button type="button" className="button ghost" disabled={i === 0} onClick={() => move(i, i - 1)} aria-label={`Move ${personName(members, userId)} earlier`}>
                ↑
              </button>
              <button
                type="button"
                className="button ghost"
                disabled={i === draft.userIds.length - 1}
                onClick={() => move(i, i + 1)}
                aria-label={`Move ${personName(members, userId)} later`}
              >
                ↓
              </button>
              <button
                type="button"
                className="button ghost danger"
                onClick={() => set({ userIds: draft.userIds.filter((id) => id !== userId) })}
                aria-label={`Remove ${personName(members, userId)}`}
              >
                Remove
              </button>
            </li>
          ))}
        </ol>
        {available.length > 0 ? (
          <label className="inline-form">
            <span>Add a participant</span>
            <select
              name="addParticipant"
              value=""
              onChange={(e) => {
                if (e.target.value !== '') set({ userIds: [...draft.userIds, Number(e.target.value)] });
              }}
            >
              <option value="">Choose a member…</option>
              {available.map((m) => (
                <option key={m.userId} value={m.userId}>
                  {m.name ?? m.email}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {err('participants') ? <p className="field-error">{err('participants')}</p> : null}
      </div>
      <HandoffPreview draft={draft} timezone={timezone} members={members} />
      <div className="button-row">
        <button type="button" className="button danger" onClick={onRemove}>
          Remove this rotation
        </button>
      </div>
    </fieldset>
  );
}

/**
 * The next handoffs as the server will compute them: the same turn computation
 * (core/oncall/turns.ts, Temporal in the schedule's zone), shown in that zone as typed.
 */
function HandoffPreview({ draft, timezone, members }: { draft: RotationDraft; timezone: string; members: readonly Member[] }) {
  const preview = useMemo(() => {
    const input = toRotationInput(draft, timezone);
    if (input === null) return { problem: 'Give the rotation a start to see its handoffs.' };
    if (input.participants.length === 0) return { problem: 'Add a participant to see the handoffs.' };
    if (input.type !== 'custom' && !/^\d{2}:\d{2}/.test(input.handoffTime)) return { problem: 'Give a handoff time.' };
    try {
      const source = turnSource(
        { ...input, id: 0, effectiveUntil: input.effectiveUntil ?? null, handoffDay: input.handoffDay ?? 1, participants: input.participants ?? [] },
        timezone,
      );
      const from = Math.max(Date.parse(input.effectiveFrom), Date.now());
      // Enough time for a few more than the handoffs shown, whatever the shift length.
      const shiftHours = input.type === 'daily' ? 24 : input.type === 'weekly' ? 168 : (input.customShiftHours ?? 24);
      const turns = source?.turnsIn(from, from + (PREVIEW_HANDOFFS + 2) * shiftHours * 3_600_000) ?? [];
      return { turns: turns.filter((turn) => turn.start >= from) };
    } catch {
      return { problem: 'These settings give no handoffs.' };
    }
  }, [draft, timezone]);
  return (
    <div className="cron-preview handoffs" aria-live="polite">
      {'problem' in preview ? (
        <p className="field-hint">{preview.problem}</p>
      ) : (
        <>
          <p className="field-hint">Next handoffs ({timezone}):</p>
          <ol className="due-times">
            {preview.turns.slice(0, PREVIEW_HANDOFFS).map((turn) => (
              <li key={turn.index} data-handoff={new Date(turn.start).toISOString()}>
                <time dateTime={new Date(turn.start).toISOString()}>{formatIn(turn.start, timezone)}</time>: {personName(members, turn.userId)}
              </li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
