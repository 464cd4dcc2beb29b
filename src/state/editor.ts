import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import { type OutlineItem, type YamlPath, parsePath } from '../sim';

/**
 * The scenario being edited: its text (the source of truth, comments kept), the file name it will be saved and run
 * under, and undo/redo as stacks of earlier and later texts.
 */
export interface EditorState {
  open: boolean;
  text: string;
  fileName: string;
  undo: string[];
  redo: string[];
  /** What the simulation's loader says of the text, one `path: problem` per line; empty when it loads. */
  problems: string[];
  /** The topology's parts as the worker read them from the text, and why not when it is not YAML. */
  outline: OutlineItem[];
  outlineError: string | null;
  /** A check of the current text is on its way. */
  checking: boolean;
  /** The outline item whose values the properties form shows; null for none. */
  selected: YamlPath | null;
  /** When the last change went onto the undo stack, so a burst of typing is undone as one step. */
  lastPushAt: number;
}

export const editorStore = createStore<EditorState>(() => ({
  open: false,
  text: '',
  fileName: 'scenario.yaml',
  undo: [],
  redo: [],
  problems: [],
  outline: [],
  outlineError: null,
  checking: false,
  selected: null,
  lastPushAt: 0,
}));

export function useEditor<T>(selector: (s: EditorState) => T): T {
  return useStore(editorStore, selector);
}

// Typing that pauses less than this is one undo step.
const TYPING_BURST_MS = 800;
// Model choice: deep enough for an afternoon's edits without holding many copies of a large file.
const MAX_UNDO = 200;

/** Replaces the text; `typing` changes close together share an undo step, anything else is a step of its own. */
export function editText(text: string, options: { typing?: boolean; now?: number } = {}): void {
  const s = editorStore.getState();
  if (text === s.text) return;
  const now = options.now ?? Date.now();
  const joins = options.typing === true && now - s.lastPushAt < TYPING_BURST_MS && s.undo.length > 0;
  editorStore.setState({
    text,
    undo: joins ? s.undo : [...s.undo, s.text].slice(-MAX_UNDO),
    redo: [],
    lastPushAt: options.typing === true ? now : 0,
  });
}

export function undoEdit(): void {
  const s = editorStore.getState();
  const previous = s.undo.at(-1);
  if (previous === undefined) return;
  editorStore.setState({ text: previous, undo: s.undo.slice(0, -1), redo: [...s.redo, s.text], lastPushAt: 0 });
}

export function redoEdit(): void {
  const s = editorStore.getState();
  const next = s.redo.at(-1);
  if (next === undefined) return;
  editorStore.setState({ text: next, redo: s.redo.slice(0, -1), undo: [...s.undo, s.text], lastPushAt: 0 });
}

/** The path at the start of a loader message (`topology.nodes[0].ip: …`), as keys and indexes; [] when there is none. */
export function problemPath(problem: string): (string | number)[] {
  const colon = problem.indexOf(': ');
  // `(root): …` is the whole file.
  if (colon < 0 || problem.startsWith('(')) return [];
  try {
    return parsePath(problem.slice(0, colon));
  } catch {
    return [];
  }
}

/** Where a YAML syntax error is (`… at line 2, column 5: …`), 1-based; null for any other problem. */
export function problemLine(problem: string): { line: number; column: number } | null {
  const match = /at line (\d+), column (\d+)/.exec(problem);
  return match ? { line: Number(match[1]), column: Number(match[2]) } : null;
}
