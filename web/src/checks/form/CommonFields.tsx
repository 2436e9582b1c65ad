import type { Schemas } from '../../api/client';
import { Field } from '../../ui/Field';
import { TextInput, type FormProps } from './fields';
import { SEVERITIES, type Severity } from './model';

/** Name, project, grace, severities and the badge: every kind has them. */
export function CommonFields({ form, projects }: { form: FormProps; projects: Schemas['Project'][] }) {
  const { values, set, errors } = form;
  return (
    <fieldset>
      <legend>Check</legend>
      <TextInput model={form} name="name" label="Name" required maxLength={255} autoComplete="off" />
      <Field label="Project" error={errors.projectId}>
        {(aria) => (
          <select {...aria} value={values.projectId} required onChange={(e) => set({ projectId: e.target.value })}>
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <TextInput
        model={form}
        name="graceSeconds"
        label="Grace (seconds)"
        type="number"
        inputMode="numeric"
        min={5}
        max={60}
        required
        hint="Late after the due time plus grace; down after twice the grace."
      />
      <div className="two-col">
        <SeverityField form={form} name="lateSeverity" label="Severity when late" />
        <SeverityField form={form} name="downSeverity" label="Severity when down" />
      </div>
      <TextInput model={form} name="badgeLabel" label="Badge label (optional)" maxLength={40} hint="The public badge shows this, never the check's name." />
      <label className="check-row">
        <input type="checkbox" checked={values.muteNotifications} onChange={(e) => set({ muteNotifications: e.target.checked })} /> Mute notifications
      </label>
    </fieldset>
  );
}

function SeverityField({ form, name, label }: { form: FormProps; name: 'lateSeverity' | 'downSeverity'; label: string }) {
  return (
    <Field label={label} error={form.errors[name]}>
      {(aria) => (
        <select {...aria} value={form.values[name]} onChange={(e) => form.set({ [name]: e.target.value as Severity })}>
          {SEVERITIES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      )}
    </Field>
  );
}
