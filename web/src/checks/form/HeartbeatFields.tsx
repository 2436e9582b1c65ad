import { useId } from 'react';
import { CronPreview } from './CronPreview';
import { TextInput, type FormProps } from './fields';
import { browserZone } from './model';

const ZONES: string[] = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [browserZone()];

/** When a job is due (every N seconds, or a cron schedule in a zone) and how long and how often it may run. */
export function HeartbeatFields({ form }: { form: FormProps }) {
  const { values, set } = form;
  const previewId = useId();
  const zonesId = useId();
  return (
    <>
      <fieldset>
        <legend>Slug (optional)</legend>
        {/* No pattern attribute: the API judges the slug and its details show beside the field. */}
        <TextInput
          model={form}
          name="slug"
          label="Slug"
          maxLength={64}
          autoComplete="off"
          spellCheck={false}
          hint="Lowercase letters, digits, - and _, unique in the workspace. A job can then ping by slug with an API key, and the Integration API address it as slug:<slug>. Empty clears it."
        />
      </fieldset>
      <fieldset>
        <legend>Schedule</legend>
        <div className="radio-row">
          <label>
            <input type="radio" name="timing" checked={values.timing === 'interval'} onChange={() => set({ timing: 'interval' })} /> Every fixed interval
          </label>
          <label>
            <input type="radio" name="timing" checked={values.timing === 'cron'} onChange={() => set({ timing: 'cron' })} /> Cron schedule
          </label>
        </div>
        {values.timing === 'interval' ? (
          <TextInput
            model={form}
            name="intervalSeconds"
            label="Interval (seconds)"
            type="number"
            inputMode="numeric"
            min={60}
            max={3600}
            hint="How often the job pings: 60 to 3,600 seconds."
            required
          />
        ) : (
          <>
            <TextInput
              model={form}
              name="schedule"
              label="Cron expression"
              hint="Five fields (minute hour day month weekday) or a macro such as @daily."
              autoComplete="off"
              spellCheck={false}
              required
            />
            <TextInput model={form} name="timezone" label="Time zone" list={zonesId} autoComplete="off" required />
            <datalist id={zonesId}>
              {ZONES.map((zone) => (
                <option key={zone} value={zone} />
              ))}
            </datalist>
            <CronPreview id={previewId} schedule={values.schedule} timezone={values.timezone} />
          </>
        )}
      </fieldset>
      <fieldset>
        <legend>Run bounds (optional)</legend>
        <p className="field-hint">A run that pings /start and then succeeds is timed; outside these bounds it counts as failed.</p>
        <TextInput model={form} name="minDurationSeconds" label="Shortest normal run (seconds)" type="number" inputMode="numeric" min={1} />
        <TextInput model={form} name="maxDurationSeconds" label="Longest normal run (seconds)" type="number" inputMode="numeric" min={1} />
        <TextInput
          model={form}
          name="minIntervalSeconds"
          label="Least time between successes (seconds)"
          type="number"
          inputMode="numeric"
          min={1}
          hint="A success sooner than this is recorded as too frequent."
        />
      </fieldset>
    </>
  );
}
