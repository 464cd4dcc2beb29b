import { lazy, Suspense, useEffect, useRef, useState, type DragEvent } from 'react';
import { notify } from '../../state/app-store';
import { editorStore, editText, redoEdit, undoEdit, useEditor } from '../../state/editor';
import { useKeyScope } from '../app/key-scopes';
import { samePath, ADDABLE, type Edit } from '../../sim';
import { ErrorBanner } from '../app/error-banner';
import { CloseIcon } from '../components/icons';
import { NoticeBar } from '../app/notice-bar';
import { checkScenario, editScenario, loadScenario } from '../services/sim-client';
import { accentButton, button, panel, panelTitle, smallButton } from '../components/styles';
import { ImportDialog } from './import-dialog';
import { Properties } from './properties';
import { editLoaded, fileNameProblem, saveDraft } from './open-editor';
import type { EditorControls } from './code-editor';

// CodeMirror and the schema completion load with the text view, after the rest of the editor is on screen.
const CodeEditor = lazy(() => import('./code-editor'));

// Long enough that a check does not run on every key press, short enough to feel like checking as you type.
const CHECK_AFTER_MS = 300;

export const closeEditor = (): void => editorStore.setState({ open: false });

/** Applies a structural edit in the worker; a refusal (it says why) goes to the notice line and leaves the text as it was. */
async function structural(edit: Edit | { op: 'blank' }): Promise<void> {
  const before = editorStore.getState().text;
  const result = await editScenario(before, edit);
  if ('refused' in result) notify({ message: result.refused });
  else if (editorStore.getState().text === before) editText(result.text);
}

async function runIt(): Promise<void> {
  const { text, fileName } = editorStore.getState();
  if (await loadScenario({ text, fileName, pickerValue: '' })) closeEditor();
}

function useChecking(): void {
  const text = useEditor((s) => s.text);
  const fileName = useEditor((s) => s.fileName);
  useEffect(() => {
    editorStore.setState({ checking: true });
    const timer = setTimeout(() => {
      void checkScenario(text, fileName).then(({ problems, outline, outlineError }) => {
        if (editorStore.getState().text === text) editorStore.setState({ problems, outline, outlineError, checking: false });
      });
    }, CHECK_AFTER_MS);
    return () => clearTimeout(timer);
  }, [text, fileName]);
}

function Outline({ onJump }: { onJump: (path: (string | number)[]) => void }) {
  const items = useEditor((s) => s.outline);
  const error = useEditor((s) => s.outlineError);
  const selected = useEditor((s) => s.selected);
  return (
    <section className={`${panel} w-48 shrink-0 lg:w-64`} aria-label="Topology outline">
      <h2 className={panelTitle}>Topology</h2>
      <div className="flex flex-wrap gap-1 border-b border-slate-200 p-2 dark:border-slate-800">
        {ADDABLE.map((option) => (
          <button
            key={option.kind}
            type="button"
            className={smallButton}
            data-testid="editor-add"
            data-kind={option.kind}
            title={option.description}
            onClick={() => void structural({ op: 'add', kind: option.kind })}
          >
            + {option.label}
          </button>
        ))}
      </div>
      {error !== null ? (
        <p className="p-3 text-sm text-slate-600 dark:text-slate-300">The outline waits for the text to be YAML again: {error}</p>
      ) : (
        <ul className="min-h-0 flex-1 overflow-y-auto p-1" data-testid="editor-outline">
          {items.map((item) => (
            <li
              key={item.path.join('/')}
              aria-current={selected !== null && samePath(selected, item.path) ? 'true' : undefined}
              className={`flex items-center gap-1 rounded px-1 text-sm hover:bg-slate-100 aria-[current]:bg-indigo-50 dark:hover:bg-slate-800 dark:aria-[current]:bg-indigo-950/60 ${item.kind === 'pod' ? 'pl-5' : ''}`}
              data-testid="editor-item"
              data-kind={item.kind}
              data-name={item.name}
              title={item.reason}
            >
              <button
                type="button"
                className="min-w-0 flex-1 truncate py-0.5 text-left focus-visible:outline-2 focus-visible:outline-indigo-500"
                onClick={() => {
                  editorStore.setState({ selected: item.path });
                  onJump(item.path);
                }}
                title={`${item.kind} ${item.name}: its values under Properties, and its place in the text`}
              >
                <span className="text-xs text-slate-500 dark:text-slate-400">{item.kind}</span> <span className="font-medium text-slate-800 dark:text-slate-100">{item.name}</span>{' '}
                <span className="text-xs text-slate-500 dark:text-slate-400">{item.detail}</span>
              </button>
              {item.removable ? (
                <button
                  type="button"
                  aria-label={`Remove ${item.kind} ${item.name}`}
                  title={`Remove ${item.kind} ${item.name}`}
                  data-testid="editor-remove"
                  className="rounded p-0.5 text-slate-500 hover:bg-red-100 hover:text-red-700 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:hover:bg-red-950"
                  onClick={() => void structural({ op: 'remove', path: item.path })}
                >
                  <CloseIcon />
                </button>
              ) : (
                item.reason && <span className="sr-only">{item.reason}</span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The text, read-only, while CodeMirror loads: nothing can be typed that it would then miss. */
function LoadingText() {
  const text = useEditor((s) => s.text);
  return (
    <textarea
      readOnly
      value={text}
      wrap="off"
      aria-label="Scenario YAML (read-only until the editor has loaded)"
      aria-busy="true"
      data-testid="editor-loading"
      className="min-h-0 min-w-0 flex-1 cursor-wait resize-none rounded-lg border border-slate-300 bg-white p-3 font-mono text-sm leading-relaxed text-slate-500 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-400"
    />
  );
}

function Problems({ onJump }: { onJump: (problem: string) => void }) {
  const problems = useEditor((s) => s.problems);
  const checking = useEditor((s) => s.checking);
  return (
    <section className={`${panel} max-h-[45%] shrink-0`} aria-label="Problems">
      <h2 className={panelTitle}>
        Problems <span data-testid="editor-problem-count">{checking ? 'checking…' : problems.length === 0 ? 'none: it loads' : problems.length}</span>
      </h2>
      <ul className="min-h-0 flex-1 space-y-1 overflow-y-auto p-2" aria-live="polite">
        {problems.map((p, i) => (
          <li key={i}>
            <button
              type="button"
              data-testid="editor-problem"
              onClick={() => onJump(p)}
              className="w-full rounded px-1.5 py-1 text-left font-mono text-xs break-words text-red-800 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-red-300 dark:hover:bg-red-950/50"
            >
              {p}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * The scenario editor: the YAML text (checked by the simulation's own loader as you type), an outline of the topology
 * with buttons that add and remove parts, undo and redo, import of a file or of Kubernetes manifests, save and run.
 */
export default function EditorLayout() {
  useChecking();
  const fileName = useEditor((s) => s.fileName);
  const canUndo = useEditor((s) => s.undo.length > 0);
  const canRedo = useEditor((s) => s.redo.length > 0);
  const problems = useEditor((s) => s.problems.length);
  const nameProblem = fileNameProblem(fileName);
  useKeyScope('editor');
  const controls = useRef<EditorControls | null>(null);
  const [importing, setImporting] = useState(false);

  const jumpToPath = (path: (string | number)[]): void => controls.current?.selectPath(path);
  const jumpToProblem = (problem: string): void => controls.current?.selectProblem(problem);

  const onDrop = async (event: DragEvent<HTMLElement>): Promise<void> => {
    const file = event.dataTransfer.files[0];
    if (!file) return;
    event.preventDefault();
    editText(await file.text());
    editorStore.setState({ fileName: file.name });
  };

  return (
    <div className="flex h-full flex-col" data-layout="editor" onDragOver={(e) => e.preventDefault()} onDrop={(e) => void onDrop(e)}>
      <header className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-white px-4 py-2 dark:border-slate-800 dark:bg-slate-900">
        <h1 className="text-base font-semibold text-slate-900 dark:text-white">Scenario editor</h1>
        <label className="flex items-center gap-1.5 text-sm text-slate-600 dark:text-slate-300">
          file
          <input
            value={fileName}
            onChange={(e) => editorStore.setState({ fileName: e.target.value })}
            aria-invalid={nameProblem !== null}
            aria-describedby="editor-file-problem"
            data-testid="editor-file-name"
            className="h-8 w-48 rounded-md border border-slate-300 bg-white px-2 font-mono text-sm aria-invalid:border-red-500 dark:border-slate-700 dark:bg-slate-800"
          />
        </label>
        {nameProblem !== null && (
          <span id="editor-file-problem" role="alert" className="text-sm text-red-700 dark:text-red-300" data-testid="editor-file-problem">
            {nameProblem}
          </span>
        )}
        <div className="mx-2 flex gap-1">
          <button type="button" className={button} disabled={!canUndo} onClick={undoEdit} title="Undo (Ctrl+Z)" data-testid="editor-undo">
            Undo
          </button>
          <button type="button" className={button} disabled={!canRedo} onClick={redoEdit} title="Redo (Ctrl+Shift+Z)" data-testid="editor-redo">
            Redo
          </button>
        </div>
        <button type="button" className={button} onClick={editLoaded} data-testid="editor-loaded" title="The loaded scenario's text in place of this draft (undo brings the draft back)">
          Loaded scenario
        </button>
        <button type="button" className={button} onClick={() => void structural({ op: 'blank' })} data-testid="editor-blank">
          New blank
        </button>
        <button type="button" className={button} onClick={() => setImporting(true)} data-testid="editor-import">
          Import manifests…
        </button>
        <button type="button" className={button} disabled={nameProblem !== null} onClick={saveDraft} title="Save as YAML (Ctrl+S)" data-testid="editor-save">
          Save YAML
        </button>
        <div className="ml-auto flex gap-2">
          <button
            type="button"
            className={accentButton}
            disabled={problems > 0 || nameProblem !== null}
            onClick={() => void runIt()}
            data-testid="editor-run"
            title={problems > 0 ? 'Fix the problems first' : 'Load it into the simulation'}
          >
            Run it
          </button>
          <button type="button" className={button} onClick={closeEditor} data-testid="editor-close" title="Back to the run; the draft stays here">
            Close
          </button>
        </div>
      </header>
      <ErrorBanner />
      <NoticeBar />
      <main className="flex min-h-0 flex-1 gap-2 p-2">
        <Outline onJump={jumpToPath} />
        <div className="flex min-h-0 min-w-0 flex-1 flex-col gap-1">
          <Suspense fallback={<LoadingText />}>
            <CodeEditor controls={controls} />
          </Suspense>
          <p className="truncate px-1 text-xs text-slate-600 dark:text-slate-400" data-testid="editor-keys">
            Tab indents, Esc then Tab moves on · Ctrl+Space completes · Ctrl+F searches · F8 goes to the next problem
          </p>
        </div>
        <div className="flex w-64 shrink-0 lg:w-80 flex-col gap-2">
          <Properties />
          <Problems onJump={jumpToProblem} />
        </div>
      </main>
      {importing && <ImportDialog onClose={() => setImporting(false)} />}
    </div>
  );
}
