import type { InputHTMLAttributes } from 'react';
import { Field } from '../../ui/Field';
import type { FormValues } from './model';

export type FormProps = {
  values: FormValues;
  set: (change: Partial<FormValues>) => void;
  errors: Record<string, string>;
};

type TextKey = { [K in keyof FormValues]: FormValues[K] extends string ? K : never }[keyof FormValues];

/** A text or number input bound to one form value, with that field's API error. */
export function TextInput({
  model,
  name,
  label,
  hint,
  ...input
}: { model: FormProps; name: TextKey; label: string; hint?: string } & Omit<InputHTMLAttributes<HTMLInputElement>, 'name' | 'value' | 'onChange' | 'form'>) {
  return (
    <Field label={label} hint={hint} error={model.errors[name]}>
      {(aria) => <input {...input} {...aria} name={name} value={model.values[name]} onChange={(e) => model.set({ [name]: e.target.value })} />}
    </Field>
  );
}
