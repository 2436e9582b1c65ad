import { useSyncExternalStore } from 'react';

export type ThemeChoice = 'system' | 'light' | 'dark';

/** Only the choice is stored (a preference, no secret); "system" follows the OS via CSS media queries. */
const KEY = 'vigil-theme';
const listeners = new Set<() => void>();

function read(): ThemeChoice {
  const stored = localStorage.getItem(KEY);
  return stored === 'light' || stored === 'dark' ? stored : 'system';
}

/** Applies the choice to <html data-theme>; styles.css reads it (and prefers-color-scheme for "system"). */
export function applyTheme(choice: ThemeChoice = read()): void {
  if (choice === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
}

export function setTheme(choice: ThemeChoice): void {
  if (choice === 'system') localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, choice);
  applyTheme(choice);
  listeners.forEach((listener) => listener());
}

export const useTheme = (): ThemeChoice =>
  useSyncExternalStore((listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, read);

const darkQuery = () => window.matchMedia('(prefers-color-scheme: dark)');

/** The scheme in effect (the choice, or the OS's for "system"): for what CSS cannot theme, such as a canvas. */
export function useColorScheme(): 'light' | 'dark' {
  const choice = useTheme();
  const osDark = useSyncExternalStore(
    (listener) => {
      const query = darkQuery();
      query.addEventListener('change', listener);
      return () => query.removeEventListener('change', listener);
    },
    () => darkQuery().matches,
  );
  return choice === 'system' ? (osDark ? 'dark' : 'light') : choice;
}
