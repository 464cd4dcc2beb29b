import { editorStore, editText } from '../../state/editor';
import { isScenarioFileName } from '../../state/url-params';
import { download } from '../services/download';
import { currentLoad } from '../services/sim-client';

/**
 * Opens the editor: on the draft left there if there is one (nothing typed is dropped by closing), otherwise on the
 * loaded scenario's text.
 */
export function openEditor(): void {
  const { text } = editorStore.getState();
  const load = currentLoad();
  if (text === '' && load) editorStore.setState({ text: load.text, fileName: load.fileName, undo: [], redo: [], lastPushAt: 0 });
  editorStore.setState({ open: true });
}

/** Puts the loaded scenario's text in the editor in place of the draft; undo brings the draft back. */
export function editLoaded(): void {
  const load = currentLoad();
  if (!load) return;
  editText(load.text);
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
