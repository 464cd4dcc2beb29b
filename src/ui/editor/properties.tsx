import { useEffect, useId, useRef, useState } from 'react';
import { type Field, isPrefix, samePath } from '../../sim';
import { editorStore, editText, problemPath, useEditor } from '../../state/editor';
import { fieldEdit, fieldHint, shownValue } from '../../state/field-value';
import { editScenario, scenarioFields } from '../services/sim-client';
import { panel, panelTitle, textField } from '../components/styles';

// Typing in a field is applied once it pauses this long, like the text's own check.
const APPLY_AFTER_MS = 400;
// The values are read again this long after the text last changed.
const READ_AFTER_MS = 150;

/** Applies a field's new value to the text, or says why not; typing joins the undo step of the typing just before it. */
async function apply(field: Field, raw: string, typing: boolean): Promise<string | null> {
  const asked = fieldEdit(field, raw);
  if (asked === null) return null;
  if ('problem' in asked) return asked.problem;
  const before = editorStore.getState().text;
  const result = await editScenario(before, asked.edit);
  if ('refused' in result) return `not applied, ${result.refused}`;
  if (editorStore.getState().text === before) editText(result.text, { typing });
  return null;
}

function FieldRow({ field }: { field: Field }) {
  const id = useId();
  const problems = useEditor((s) => s.problems);
  const [draft, setDraft] = useState(shownValue(field.value));
  const [refusal, setRefusal] = useState<string | null>(null);
  const typing = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // Every read of the text (after an undo, typing in the text, this field's own change) shows what the text says now,
  // unless this field is being typed in; a read that finds the same value still undoes a choice the text did not keep.
  useEffect(() => {
    if (!typing.current) setDraft(shownValue(field.value));
  }, [field]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const commit = (raw: string, typed = true): void => {
    clearTimeout(timer.current);
    timer.current = undefined;
    void apply(field, raw, typed).then(setRefusal);
  };
  const type = (raw: string): void => {
    setDraft(raw);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => commit(raw), APPLY_AFTER_MS);
  };
  const choose = (raw: string): void => {
    setDraft(raw);
    commit(raw, false);
  };

  const said = problems.filter((p) => isPrefix(field.path, problemPath(p)));
  const errors = refusal === null ? said : [refusal, ...said];
  const common = {
    id,
    'aria-invalid': errors.length > 0,
    'aria-describedby': `${id}-hint${errors.length > 0 ? ` ${id}-error` : ''}`,
    'data-testid': 'editor-field',
    'data-key': field.key,
  };
  const textProps = {
    ...common,
    value: draft,
    onFocus: () => (typing.current = true),
    onBlur: () => {
      typing.current = false;
      if (timer.current !== undefined) commit(draft);
    },
  };

  let input;
  if (field.input === 'boolean') {
    const checked = draft === '' ? field.default === true : draft === 'true';
    input = (
      <input
        type="checkbox"
        {...common}
        checked={checked}
        onChange={(e) => choose(String(e.target.checked))}
        className="size-4 accent-indigo-600 focus-visible:outline-2 focus-visible:outline-indigo-500"
      />
    );
  } else if (field.input === 'choice') {
    input = (
      <select {...common} value={draft} onChange={(e) => choose(e.target.value)} className={`${textField} w-full`}>
        {(!field.required || draft === '') && <option value="">{field.default !== undefined ? `default (${String(field.default)})` : 'not set'}</option>}
        {field.options?.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  } else if (field.key === 'description' || draft.includes('\n')) {
    input = <textarea {...textProps} rows={4} onChange={(e) => type(e.target.value)} className={`${textField} h-auto w-full py-1`} />;
  } else {
    input = (
      <input
        {...textProps}
        inputMode={field.input === 'number' ? 'decimal' : 'text'}
        placeholder={field.default !== undefined ? String(field.default) : ''}
        spellCheck={false}
        onChange={(e) => type(e.target.value)}
        onKeyDown={(e) => e.key === 'Enter' && commit(draft)}
        className={`${textField} w-full font-mono`}
      />
    );
  }

  return (
    <li className="py-1.5">
      <div className="flex items-center justify-between gap-2">
        <label htmlFor={id} className="font-mono text-xs font-medium text-slate-800 dark:text-slate-100">
          {field.key}
        </label>
        {field.value !== undefined && !field.required && (
          <button
            type="button"
            className="text-xs text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300"
            onClick={() => choose('')}
            data-testid="editor-field-reset"
            title={`Take ${field.key} out of the text`}
          >
            {field.default !== undefined ? `use default (${String(field.default)})` : 'take out'}
          </button>
        )}
      </div>
      <div className="mt-0.5">{input}</div>
      <p id={`${id}-hint`} className="mt-0.5 text-xs text-slate-500 dark:text-slate-400">
        {fieldHint(field)}
      </p>
      {errors.length > 0 && (
        <p id={`${id}-error`} role="alert" className="mt-0.5 text-xs break-words text-red-700 dark:text-red-300" data-testid="editor-field-problem">
          {errors.join('; ')}
        </p>
      )}
    </li>
  );
}

/**
 * The selected outline item's single values as a form, typed from the scenario's schema: each change is written into
 * the text (comments kept) once typing pauses, and refused with the loader's reason when the scenario would stop loading.
 */
export function Properties() {
  const selected = useEditor((s) => s.selected);
  const outline = useEditor((s) => s.outline);
  const text = useEditor((s) => s.text);
  const item = selected === null ? undefined : outline.find((i) => samePath(i.path, selected));
  const [read, setRead] = useState<{ key: string; fields: Field[]; inText: string[]; error?: string } | null>(null);
  const key = item === undefined ? '' : JSON.stringify(item.path);

  useEffect(() => {
    if (key === '') return;
    let live = true;
    // Typing in the text asks once it pauses; a new selection asks at once.
    const timer = setTimeout(
      () =>
        void scenarioFields(text, JSON.parse(key) as Field['path']).then((reply) => {
          if (!live) return;
          setRead(reply.ok ? { key, ...reply.value } : { key, fields: [], inText: [], error: reply.message });
        }),
      read?.key === key ? READ_AFTER_MS : 0,
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `read` only tells a new selection from a new text, so it is not a reason to ask again.
  }, [text, key]);

  const shown = read !== null && read.key === key ? read : null;
  return (
    <section className={`${panel} min-h-0 flex-1`} aria-label="Properties" data-testid="editor-properties">
      <h2 className={panelTitle}>
        <span>Properties</span>
        {item && (
          <span className="truncate normal-case tracking-normal">
            {item.kind} {item.name}
          </span>
        )}
      </h2>
      {item === undefined ? (
        <p className="p-3 text-sm text-slate-600 dark:text-slate-300">Select an item in the outline to set its values here. Each change goes into the text, where undo takes it back.</p>
      ) : shown === null ? (
        <p className="p-3 text-sm text-slate-500 dark:text-slate-400">Reading…</p>
      ) : (
        <div className="min-h-0 flex-1 overflow-y-auto px-3 py-1">
          {shown.error !== undefined && <p className="py-2 text-sm text-red-700 dark:text-red-300">{shown.error}</p>}
          <ul className="divide-y divide-slate-100 dark:divide-slate-800">
            {shown.fields.map((f) => (
              <FieldRow key={`${key}/${f.key}`} field={f} />
            ))}
          </ul>
          {shown.inText.length > 0 && (
            <p className="py-2 text-xs text-slate-500 dark:text-slate-400" data-testid="editor-in-text">
              Lists and maps, edited in the text: {shown.inText.join(', ')}
            </p>
          )}
        </div>
      )}
    </section>
  );
}
