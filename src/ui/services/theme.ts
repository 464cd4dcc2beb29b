import { useEffect } from 'react';
import { appStore, useApp, type ThemeChoice } from '../../state/app-store';

const STORAGE_KEY = 'netmortem.theme';
const darkQuery = (): MediaQueryList => window.matchMedia('(prefers-color-scheme: dark)');

export function storedTheme(): ThemeChoice {
  try {
    const v = window.localStorage.getItem(STORAGE_KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

export function effectiveTheme(choice: ThemeChoice): 'light' | 'dark' {
  if (choice !== 'system') return choice;
  return darkQuery().matches ? 'dark' : 'light';
}

/** Flips to the opposite of what is showing and remembers the choice. */
export function toggleTheme(): void {
  const next = effectiveTheme(appStore.getState().theme) === 'dark' ? 'light' : 'dark';
  appStore.setState({ theme: next });
  try {
    window.localStorage.setItem(STORAGE_KEY, next);
  } catch {
    // Storage can be disabled (private windows, file://); the choice then lasts for this page only.
  }
}

/** Keeps the `dark` class on <html> in step with the choice and, for `system`, with the OS setting. */
export function useThemeClass(): 'light' | 'dark' {
  const choice = useApp((s) => s.theme);
  useEffect(() => {
    const apply = (): void => {
      document.documentElement.classList.toggle('dark', effectiveTheme(choice) === 'dark');
    };
    apply();
    const query = darkQuery();
    query.addEventListener('change', apply);
    return () => query.removeEventListener('change', apply);
  }, [choice]);
  return effectiveTheme(choice);
}
