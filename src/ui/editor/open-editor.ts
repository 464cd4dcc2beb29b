import { editorStore, editText } from '../../state/editor';
import { currentLoad } from '../sim-client';

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
