import { useEffect } from 'react';

/**
 * Where a key works (app/keymap.ts). `run`: the app around a run (every layout); `presenter`: presenter mode, ahead of
 * everything else on the page, so a clicker's keys always step the story; `editor`: the scenario editor, which takes
 * the page and leaves the run's keys alone while it is open; `control`: keys a focused control handles itself.
 */
export type KeyScope = 'run' | 'presenter' | 'editor' | 'control';

/** Scopes whose part of the app is on screen. */
export const activeKeyScopes = new Set<KeyScope>();

/** The part of the app a component shows takes its keys while the component is mounted. */
export function useKeyScope(scope: KeyScope): void {
  useEffect(() => {
    activeKeyScopes.add(scope);
    return () => {
      activeKeyScopes.delete(scope);
    };
  }, [scope]);
}
