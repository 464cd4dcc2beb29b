import { useState } from 'react';
import { button } from './styles';

/** A read-only value (a link, an iframe snippet) selected on focus, with a Copy button that says when it has copied it. */
export function CopyField({ value, label, testId, rows }: { value: string; label: string; testId: string; rows?: number }) {
  // The value last copied: once the value changes, the button says Copy again.
  const [copied, setCopied] = useState<string | null>(null);
  const field = 'min-w-0 flex-1 rounded-md border border-slate-300 bg-slate-50 font-mono text-xs text-slate-800 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-100';
  return (
    <div className="flex gap-2">
      {rows === undefined ? (
        <input readOnly value={value} aria-label={label} data-testid={testId} className={`${field} h-9 px-2`} onFocus={(e) => e.currentTarget.select()} />
      ) : (
        <textarea readOnly rows={rows} value={value} aria-label={label} data-testid={testId} className={`${field} resize-none p-2`} onFocus={(e) => e.currentTarget.select()} />
      )}
      <button
        type="button"
        className={button}
        data-testid={`${testId}-copy`}
        onClick={() => {
          void navigator.clipboard?.writeText(value).then(
            () => setCopied(value),
            () => setCopied(null),
          );
        }}
      >
        {copied === value ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}
