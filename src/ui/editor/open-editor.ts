import { editorStore, editText } from '../../state/editor';
import { isScenarioFileName } from '../../state/url-params';
import { download } from '../services/download';
import { textWithRun } from '../services/run-text';
import { currentLoad, type LoadRequest } from '../services/sim-client';

/**
 * The loaded scenario's text as it runs: the overrides and the faults added to its timeline when it was loaded (a sweep
 * row's variant, a link's) written into it, so that running the text runs what is on screen.
 */
function loadedText(load: LoadRequest): Promise<string> {
  if (!load.sets?.length && !load.timeline?.length) return Promise.resolve(load.text);
  return textWithRun(load.text, { sets: load.sets, timeline: load.timeline }, 'the loaded run');
}

/**
 * Opens the editor: on the draft left there if there is one (nothing typed is dropped by closing), otherwise on the
 * loaded scenario's text as it runs.
 */
export async function openEditor(): Promise<void> {
  const { text } = editorStore.getState();
  const load = currentLoad();
  if (text === '' && load) editorStore.setState({ text: await loadedText(load), fileName: load.fileName, undo: [], redo: [], lastPushAt: 0 });
  editorStore.setState({ open: true });
}

/** Puts the loaded scenario's text, as it runs, in the editor in place of the draft; undo brings the draft back. */
export async function editLoaded(): Promise<void> {
  const load = currentLoad();
  if (!load) return;
  editText(await loadedText(load));
  editorStore.setState({ fileName: load.fileName });
}

/** Why the editor's file name will not do, naming the field; null when it will. */
export function fileNameProblem(fileName: string): string | null {
  return isScenarioFileName(fileName) ? null : `file: expected a name like "mine.yaml" (letters, digits, ".", "-" and "_", ending .yaml, .yml or .json), got "${fileName}"`;
}

/** Saves the editor's text as a file under its name (Ctrl+S, Save); nothing while the name will not do. */
export function saveDraft(): void {
  const { text, fileName } = editorStore.getState();
  if (fileNameProblem(fileName) === null) download(fileName, 'application/yaml', text);
}
