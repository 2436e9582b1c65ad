import { setTheme, useTheme, type ThemeChoice } from './theme';

const CHOICES: { value: ThemeChoice; label: string }[] = [
  { value: 'system', label: 'System' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

/** Light, dark, or the OS's choice (the default). */
export function ThemeSwitch() {
  const theme = useTheme();
  return (
    <label className="theme-switch">
      <span>Theme</span>
      <select value={theme} onChange={(e) => setTheme(e.target.value as ThemeChoice)}>
        {CHOICES.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
    </label>
  );
}
