import { useEffect, useRef, type KeyboardEvent, type RefObject } from 'react';

/** Why a menu closes: Escape (focus goes back where it came from) or a pointer outside it (focus goes where it lands). */
export type MenuClose = 'escape' | 'outside';

/**
 * A menu's behaviour: its first item takes focus whenever `shown` changes to something, a pointer outside closes it,
 * arrow keys move between items and Escape closes it. Returns the key handler for the menu's element.
 */
export function useMenu(ref: RefObject<HTMLElement | null>, shown: unknown, onClose: (why: MenuClose) => void): (event: KeyboardEvent) => void {
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    if (!shown) return;
    ref.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const onPointer = (event: PointerEvent): void => {
      if (ref.current && !ref.current.contains(event.target as Node)) close.current('outside');
    };
    window.addEventListener('pointerdown', onPointer, true);
    return () => window.removeEventListener('pointerdown', onPointer, true);
  }, [ref, shown]);

  return (event) => {
    const items = [...(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (event.key === 'Escape') close.current('escape');
    else if (event.key === 'ArrowDown') items[(at + 1) % items.length]?.focus();
    else if (event.key === 'ArrowUp') items[(at - 1 + items.length) % items.length]?.focus();
    else return;
    event.preventDefault();
    event.stopPropagation();
  };
}
