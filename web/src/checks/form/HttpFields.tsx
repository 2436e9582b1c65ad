import { Field } from '../../ui/Field';
import { TextInput, type FormProps } from './fields';
import { METHODS, REGIONS, type Method } from './model';

/** What to request, from where, and what counts as up. */
export function HttpFields({ form }: { form: FormProps }) {
  const { values, set, errors } = form;
  const headerError = Object.entries(errors).find(([key]) => key === 'customHeaders' || key.startsWith('customHeaders.'))?.[1];
  const regionError = Object.entries(errors).find(([key]) => key === 'regions' || key.startsWith('regions.'))?.[1];
  return (
    <>
      <fieldset>
        <legend>Request</legend>
        <TextInput
          model={form}
          name="url"
          label="URL"
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          required
          hint="A public http(s) address; private and internal addresses are refused."
        />
        <Field label="Method" error={errors.method}>
          {(aria) => (
            <select {...aria} value={values.method} onChange={(e) => set({ method: e.target.value as Method })}>
              {METHODS.map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Headers" hint="One per line: Name: value" error={headerError}>
          {(aria) => <textarea {...aria} value={values.headers} onChange={(e) => set({ headers: e.target.value })} spellCheck={false} rows={3} />}
        </Field>
        <TextInput model={form} name="intervalSeconds" label="Probe every (seconds)" type="number" inputMode="numeric" min={60} max={3600} required />
        <TextInput model={form} name="timeoutMs" label="Timeout (milliseconds)" type="number" inputMode="numeric" min={1000} max={15000} required />
        <label className="check-row">
          <input type="checkbox" checked={values.followRedirects} onChange={(e) => set({ followRedirects: e.target.checked })} /> Follow redirects
        </label>
      </fieldset>
      <fieldset>
        <legend>Regions</legend>
        {REGIONS.map((region) => (
          <label key={region} className="check-row">
            <input
              type="checkbox"
              checked={values.regions.includes(region)}
              onChange={(e) => set({ regions: e.target.checked ? [...values.regions, region] : values.regions.filter((r) => r !== region) })}
            />{' '}
            {region}
          </label>
        ))}
        {regionError ? <p className="field-error">{regionError}</p> : null}
      </fieldset>
      <fieldset>
        <legend>Thresholds</legend>
        <TextInput model={form} name="expectedStatusMin" label="Lowest good status" type="number" inputMode="numeric" min={100} max={599} required />
        <TextInput model={form} name="expectedStatusMax" label="Highest good status" type="number" inputMode="numeric" min={100} max={599} required />
        <TextInput model={form} name="latencyWarnMs" label="Warn above latency (ms, optional)" type="number" inputMode="numeric" min={1} max={60000} />
        <TextInput model={form} name="failAfterConsecutive" label="Down after failed rounds in a row" type="number" inputMode="numeric" min={1} max={10} required />
        <TextInput model={form} name="resolveAfterConsecutiveSuccess" label="Up again after good rounds in a row" type="number" inputMode="numeric" min={1} max={10} required />
      </fieldset>
    </>
  );
}
