/** Text fields and selects keep their own keys; everywhere else the shortcuts apply. */
export function typingInto(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return true;
  return target instanceof HTMLInputElement && target.type !== 'button' && target.type !== 'checkbox' && target.type !== 'file';
}
