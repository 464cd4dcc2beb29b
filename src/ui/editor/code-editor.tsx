import { useEffect, useRef, type RefObject } from 'react';
import {
  autocompletion,
  closeBrackets,
  closeBracketsKeymap,
  insertCompletionText,
  pickedCompletion,
  type Completion,
  type CompletionContext,
  type CompletionResult,
} from '@codemirror/autocomplete';
import { defaultKeymap, indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { bracketMatching, foldGutter, foldKeymap, HighlightStyle, indentOnInput, indentUnit, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, lintKeymap, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import { Annotation, Compartment, EditorState, type Extension } from '@codemirror/state';
import { drawSelection, dropCursor, EditorView, highlightActiveLine, highlightActiveLineGutter, highlightSpecialChars, keymap, lineNumbers } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { pathLocator, type JsonSchema, type PathSegment } from '../../sim';
import { editorStore, editText, redoEdit, undoEdit } from '../../state/editor';
import { problemOffsets } from './problem-place';
import { suggest } from './schema-complete';
import { placeAt, WORD } from './yaml-place';

/**
 * What the rest of the editor asks of the text view: select the line of a path (an outline item's) or of a loader
 * problem, scroll it near the top and put the focus in the text. Places are found in the view's own text, whose line
 * breaks are "\n" whatever the file came with.
 */
export interface EditorControls {
  selectPath(path: readonly PathSegment[]): void;
  selectProblem(problem: string): void;
}

/** Marks the view's changes that copy the store's text, so they are not written back as typing. */
const fromStore = Annotation.define<boolean>();

let schemaLoad: Promise<JsonSchema | null> | undefined;

/** The scenario's JSON Schema, fetched from the app's folder the first time the editor opens; null while unreachable. */
function loadSchema(): Promise<JsonSchema | null> {
  schemaLoad ??= fetch(`${import.meta.env.BASE_URL}scenario.schema.json`)
    .then((response) => (response.ok ? (response.json() as Promise<JsonSchema>) : null))
    .catch(() => null)
    .then((schema) => {
      // A failed fetch is tried again on the next completion instead of leaving completion off for the page's life.
      if (schema === null) schemaLoad = undefined;
      return schema;
    });
  return schemaLoad;
}

/** Writes `text` over the whole word the completion started in, the part after the cursor too (a key being renamed). */
const replaceWord =
  (text: string) =>
  (view: EditorView, completion: Completion, from: number, to: number): void => {
    let end = to;
    while (end < view.state.doc.length && WORD.test(view.state.sliceDoc(end, end + 1))) end++;
    view.dispatch({ ...insertCompletionText(view.state, text, from, end), annotations: pickedCompletion.of(completion) });
  };

async function complete(context: CompletionContext): Promise<CompletionResult | null> {
  const place = placeAt(context.state.doc.toString(), context.pos);
  // A new line offers keys only when asked (Ctrl+Space); a value is offered as soon as its key's colon is typed.
  if (!place || (!context.explicit && place.kind === 'key' && place.from === place.to)) return null;
  const schema = await loadSchema();
  if (!schema || context.aborted) return null;
  const options = suggest(schema, place).map((s): Completion => ({
    label: s.label,
    apply: replaceWord(s.apply),
    type: s.what === 'key' ? 'property' : 'enum',
    ...(s.detail !== undefined ? { detail: s.detail } : {}),
    ...(s.info !== undefined ? { info: s.info } : {}),
    ...(s.boost !== undefined ? { boost: s.boost } : {}),
  }));
  // Filtered by what is typed before the cursor: on a key being renamed, the other keys are offered too.
  return options.length === 0 ? null : { from: place.from, to: context.pos, options, validFor: /^[\w.-]*$/ };
}

/** The loader's problems as diagnostics, each from its place to the end of that line. */
function diagnostics(state: EditorState, problems: readonly string[]): Diagnostic[] {
  return problemOffsets(state.doc.toString(), problems).map((at, i) => {
    const line = state.doc.lineAt(at);
    return { from: at, to: Math.max(at, line.from + line.text.trimEnd().length), severity: 'error', message: problems[i]! };
  });
}

/** Brings the view to the store's text by replacing only what differs, so the cursor and scroll stay where they were. */
function syncText(view: EditorView, text: string): void {
  // The view keeps "\n" line breaks whatever a file came with.
  const next = text.replace(/\r\n?/g, '\n');
  const now = view.state.doc.toString();
  if (next === now) return;
  let start = 0;
  while (start < now.length && start < next.length && now[start] === next[start]) start++;
  let end = 0;
  while (end < now.length - start && end < next.length - start && now[now.length - 1 - end] === next[next.length - 1 - end]) end++;
  view.dispatch({
    changes: { from: start, to: now.length - end, insert: next.slice(start, next.length - end) },
    annotations: fromStore.of(true),
    effects: EditorView.scrollIntoView(start, { y: 'nearest' }),
  });
}

const isDark = (): boolean => document.documentElement.classList.contains('dark');

const MONO = 'var(--font-mono, ui-monospace, monospace)';

// Colours come from src/index.css, whose `.dark` block switches them with the app's theme; custom properties reach
// into the editor's shadow root, where the page's classes do not.
const theme = EditorView.theme({
  '&': { height: '100%', fontSize: '0.875rem', color: 'var(--c-code-text)', backgroundColor: 'var(--c-code-bg)' },
  '&.cm-focused': { outline: '2px solid #6366f1', outlineOffset: '-2px' },
  '.cm-scroller': { fontFamily: MONO, lineHeight: '1.6' },
  '.cm-content': { caretColor: 'var(--c-code-text)', paddingBlock: '6px' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--c-code-text)', borderLeftWidth: '2px' },
  '.cm-gutters': { backgroundColor: 'var(--c-code-gutter-bg)', color: 'var(--c-code-gutter)', borderRight: '1px solid var(--c-code-border)' },
  '.cm-activeLine': { backgroundColor: 'var(--c-code-active)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--c-code-active)', color: 'var(--c-code-text)' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection': { backgroundColor: 'var(--c-code-selection)' },
  '.cm-searchMatch': { backgroundColor: 'var(--c-code-match)', outline: 'none' },
  '.cm-tooltip': {
    backgroundColor: 'var(--c-code-bg)',
    color: 'var(--c-code-text)',
    border: '1px solid var(--c-code-border)',
    borderRadius: '6px',
    boxShadow: '0 4px 12px rgb(0 0 0 / 0.15)',
  },
  '.cm-tooltip.cm-tooltip-autocomplete > ul': { fontFamily: MONO, maxHeight: '16em' },
  '.cm-tooltip.cm-tooltip-autocomplete > ul > li': { padding: '2px 8px', lineHeight: '1.5' },
  '.cm-tooltip.cm-tooltip-autocomplete > ul > li[aria-selected]': { backgroundColor: 'var(--c-code-pick)', color: 'var(--c-code-text)' },
  '.cm-completionDetail': { color: 'var(--c-code-gutter)', fontStyle: 'normal', marginLeft: '1.5em' },
  '.cm-completionMatchedText': { textDecoration: 'none', fontWeight: '700' },
  '.cm-tooltip.cm-completionInfo': { padding: '6px 10px', maxWidth: '24rem', fontFamily: 'inherit' },
  '.cm-diagnostic': { padding: '4px 8px', fontFamily: MONO },
  '.cm-diagnostic-error': { borderLeftColor: 'var(--c-code-error)' },
  '.cm-panels': { backgroundColor: 'var(--c-code-gutter-bg)', color: 'var(--c-code-text)' },
  '.cm-panels.cm-panels-top': { borderBottom: '1px solid var(--c-code-border)' },
  '.cm-panel.cm-search': { fontSize: '0.8125rem' },
  '.cm-panel.cm-search input, .cm-panel.cm-search button, .cm-panel.cm-search label': { fontSize: 'inherit' },
  '.cm-textfield': { backgroundColor: 'var(--c-code-bg)', color: 'var(--c-code-text)', border: '1px solid var(--c-code-border)', borderRadius: '4px' },
  '.cm-foldPlaceholder': { backgroundColor: 'var(--c-code-active)', color: 'var(--c-code-gutter)', border: '1px solid var(--c-code-border)' },
});

const highlight = HighlightStyle.define([
  { tag: tags.propertyName, color: 'var(--c-code-key)' },
  { tag: tags.string, color: 'var(--c-code-string)' },
  { tag: tags.comment, color: 'var(--c-code-comment)', fontStyle: 'italic' },
  { tag: [tags.separator, tags.punctuation, tags.bracket], color: 'var(--c-code-punct)' },
  { tag: [tags.meta, tags.keyword, tags.labelName, tags.typeName, tags.attributeValue], color: 'var(--c-code-meta)' },
]);

function extensions(darkness: Compartment): Extension[] {
  return [
    lineNumbers(),
    foldGutter(),
    lintGutter(),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    drawSelection(),
    dropCursor(),
    indentOnInput(),
    bracketMatching(),
    closeBrackets(),
    highlightActiveLine(),
    highlightSelectionMatches(),
    search({ top: true }),
    autocompletion({ override: [complete], icons: false }),
    yaml(),
    indentUnit.of('  '),
    EditorState.tabSize.of(2),
    syntaxHighlighting(highlight),
    theme,
    darkness.of(EditorView.darkTheme.of(isDark())),
    // No history(): undo is the editor store's, shared with the outline, the properties form and the buttons (app/keymap.ts).
    keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...foldKeymap, ...lintKeymap, indentWithTab]),
    EditorView.contentAttributes.of({ 'aria-label': 'Scenario YAML', 'data-testid': 'editor-text' }),
    EditorView.domEventHandlers({
      // The browser's own undo (a context menu's, an Edit menu's) goes to the one history too.
      beforeinput(event) {
        const step = event.inputType === 'historyUndo' ? undoEdit : event.inputType === 'historyRedo' ? redoEdit : undefined;
        if (!step) return false;
        event.preventDefault();
        step();
        return true;
      },
      // A dropped file replaces the draft, as the editor's drop handler has it, instead of being pasted in at the drop point.
      drop: (event) => (event.dataTransfer?.files.length ?? 0) > 0,
    }),
    EditorView.updateListener.of((update) => {
      if (update.transactions.some((tr) => tr.docChanged && !tr.annotation(fromStore))) editText(update.state.doc.toString(), { typing: true });
    }),
  ];
}

/**
 * The scenario's YAML in CodeMirror: line numbers, highlighting in the app's light or dark theme, search, the loader's
 * problems marked at their lines and completion from public/scenario.schema.json. Its text is the editor store's,
 * both ways, and so is its undo. Loaded only when the editor opens, so none of CodeMirror is in the app's first load.
 */
export default function CodeEditor({ controls }: { controls: RefObject<EditorControls | null> }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const darkness = new Compartment();
    // In a document CodeMirror writes its styles into a <style> element, which the app's Content-Security-Policy
    // (style-src 'self', README) blocks; in a shadow root it uses a constructed style sheet, which the policy allows.
    const shadow = host.current!.shadowRoot ?? host.current!.attachShadow({ mode: 'open' });
    const parent = document.createElement('div');
    parent.style.height = '100%';
    shadow.append(parent);
    const view = new EditorView({
      root: shadow,
      parent,
      state: EditorState.create({ doc: editorStore.getState().text.replace(/\r\n?/g, '\n'), extensions: extensions(darkness) }),
    });
    void loadSchema();
    const showProblems = (problems: readonly string[]): void => {
      view.dispatch(setDiagnostics(view.state, diagnostics(view.state, problems)));
    };
    showProblems(editorStore.getState().problems);
    const unsubscribe = editorStore.subscribe((state, previous) => {
      if (state.text !== previous.text) syncText(view, state.text);
      if (state.problems !== previous.problems) showProblems(state.problems);
    });
    let dark = isDark();
    const themeWatch = new MutationObserver(() => {
      if (isDark() === dark) return;
      dark = isDark();
      view.dispatch({ effects: darkness.reconfigure(EditorView.darkTheme.of(dark)) });
    });
    themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ['class'] });
    const selectLine = (offset: number): void => {
      const line = view.state.doc.lineAt(Math.min(Math.max(0, offset), view.state.doc.length));
      view.dispatch({ selection: { anchor: line.from, head: line.to }, effects: EditorView.scrollIntoView(line.from, { y: 'start', yMargin: 3 * view.defaultLineHeight }) });
      view.focus();
    };
    controls.current = {
      selectPath: (path) => selectLine(pathLocator(view.state.doc.toString())(path).offset),
      selectProblem: (problem) => selectLine(problemOffsets(view.state.doc.toString(), [problem])[0]!),
    };
    return () => {
      controls.current = null;
      themeWatch.disconnect();
      unsubscribe();
      view.destroy();
      parent.remove();
    };
  }, [controls]);
  return <div ref={host} className="min-h-0 min-w-0 flex-1 overflow-hidden rounded-lg border border-slate-300 dark:border-slate-700" />;
}
