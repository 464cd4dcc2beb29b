import { beforeEach, describe, expect, it } from 'vitest';
import { editorStore, editText, problemLine, problemPath, redoEdit, undoEdit } from '../../src/state/editor';

describe('editor undo and redo', () => {
  beforeEach(() => editorStore.setState({ text: 'a', undo: [], redo: [], lastPushAt: 0 }));

  it('undo and redo whole edits in order, and a new edit forgets what could be redone', () => {
    editText('b');
    editText('c');
    undoEdit();
    expect(editorStore.getState().text).toBe('b');
    undoEdit();
    expect(editorStore.getState().text).toBe('a');
    undoEdit();
    expect(editorStore.getState().text).toBe('a');
    redoEdit();
    expect(editorStore.getState().text).toBe('b');
    editText('x');
    redoEdit();
    expect(editorStore.getState()).toMatchObject({ text: 'x', redo: [], undo: ['a', 'b'] });
  });

  it('treat a burst of typing as one step, and a pause as the start of another', () => {
    editText('ab', { typing: true, now: 1_000 });
    editText('abc', { typing: true, now: 1_300 });
    editText('abcd', { typing: true, now: 1_600 });
    editText('abcde', { typing: true, now: 3_000 });
    undoEdit();
    expect(editorStore.getState().text).toBe('abcd');
    undoEdit();
    expect(editorStore.getState().text).toBe('a');
  });
});

describe('paths in loader messages', () => {
  it.each([
    ['topology.nodes[0].ip: not an IPv4 address', ['topology', 'nodes', 0, 'ip']],
    ['topology.deployments.web-2.replicas: too big', ['topology', 'deployments', 'web-2', 'replicas']],
    ['params["odd key"].x: bad', ['params', 'odd key', 'x']],
    ['fixes.a.set["params.client.reconnectMs"]: unknown', ['fixes', 'a', 'set', 'params.client.reconnectMs']],
    ['duration: must be positive', ['duration']],
    ['(root): YAML syntax error at line 2, column 5: Nested mappings are not allowed in compact mappings', []],
    ['(root): expected an object', []],
  ])('%s', (problem, path) => {
    expect(problemPath(problem)).toEqual(path);
  });

  it('find the line and column of a YAML syntax error', () => {
    expect(problemLine('(root): YAML syntax error at line 2, column 5: Nested mappings are not allowed')).toEqual({ line: 2, column: 5 });
    expect(problemLine('duration: must be positive')).toBeNull();
  });
});
