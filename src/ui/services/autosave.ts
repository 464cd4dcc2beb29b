import { notify } from '../../state/app-store';
import { editorStore } from '../../state/editor';
import { writeSession, type EditorDraft } from '../../state/sessions';
import { currentRun } from './run-link';
import { currentLoad } from './sim-client';

/** The editor's text worth keeping: anything that is not just the loaded scenario as it was loaded. */
function draft(): EditorDraft | undefined {
  const { text, fileName, open } = editorStore.getState();
  if (text === '' || (!open && text === currentLoad()?.text)) return undefined;
  return { text, fileName, open };
}

// Often enough that a crash or a closed tab loses a couple of seconds at most; a save is one small localStorage write.
const SAVE_EVERY_MS = 2_000;

/**
 * Saves this tab's run (scenario, seed, fixes, applied faults, moment) and the editor's draft whenever they change,
 * and as the page goes. Before any scenario has loaded the draft alone is saved, so text typed into the editor of a
 * tab whose scenario failed is kept too.
 */
export function startAutosave(tab: string): void {
  let last = '';
  let warned = false;
  const save = (): void => {
    const run = currentRun();
    const kept = draft();
    if (!run && !kept) return;
    const text = JSON.stringify([run, kept]);
    if (text === last) return;
    last = text;
    let problem: string | null;
    try {
      problem = writeSession(localStorage, { tab, savedAt: Date.now(), ...(run ? { run } : {}), ...(kept ? { draft: kept } : {}) });
    } catch (error) {
      problem = (error as Error).message;
    }
    if (problem !== null && !warned) {
      warned = true;
      notify({ message: `This browser refused to keep a copy of your run (${problem}); a reload will start afresh. Share a link to keep it.` });
    }
  };
  setInterval(save, SAVE_EVERY_MS);
  window.addEventListener('pagehide', save);
}
