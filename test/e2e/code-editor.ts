import type { Page } from 'playwright-core';

/**
 * The scenario editor's text is a CodeMirror view, which draws only the lines in sight, so its DOM does not hold the
 * whole text. These read the view's state the way EditorView.findFromDOM finds the view from its content element.
 */
type ViewOnDom = { cmTile?: { root?: { view?: { state: { doc: { toString(): string }; selection: { main: { from: number; to: number } }; sliceDoc(from: number, to: number): string } } } } };

const content = (page: Page) => page.getByTestId('editor-text');

/** The whole text in the editor. */
export function editorText(page: Page): Promise<string> {
  return content(page).evaluate((el) => {
    const view = (el as ViewOnDom).cmTile?.root?.view;
    if (!view) throw new Error('no CodeMirror view behind [data-testid="editor-text"]: has @codemirror/view changed how findFromDOM finds it?');
    return view.state.doc.toString();
  });
}

/** The text the editor's main selection covers. */
export function editorSelection(page: Page): Promise<string> {
  return content(page).evaluate((el) => {
    const view = (el as ViewOnDom).cmTile?.root?.view;
    if (!view) throw new Error('no CodeMirror view behind [data-testid="editor-text"]');
    const { from, to } = view.state.selection.main;
    return view.state.sliceDoc(from, to);
  });
}

/** Replaces the editor's text as a person would: select all, then type (insert) the new text in one go. */
export async function fillEditor(page: Page, text: string): Promise<void> {
  await content(page).click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(text);
}
