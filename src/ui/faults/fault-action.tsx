import { useId, useState } from 'react';
import type { FaultDescriptor, FaultParamDescriptor } from '../../sim';
import { useApp } from '../../state/app-store';
import { defaultDraft, draftToParams, type ParamDraft } from '../../state/fault-draft';
import { applyFault } from '../services/sim-client';
import { smallButton } from '../components/styles';
import { startFaultBranch } from '../timeline/compare-client';

/** Applying a fault breaks something on purpose, so its button reads as a warning rather than a routine action. */
const faultButton =
  'inline-flex h-8 items-center justify-center gap-1.5 rounded-md border border-red-300 bg-white px-2.5 text-sm font-medium text-red-700 shadow-sm transition-colors hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 disabled:cursor-not-allowed disabled:opacity-50 dark:border-red-800 dark:bg-slate-800 dark:text-red-300 dark:hover:bg-red-950/60';

/** Catalog descriptions mark commands with backticks; show those as code. */
function Description({ text }: { text: string }) {
  return (
    <>
      {text.split('`').map((part, i) =>
        i % 2 === 1 ? (
          <code key={i} className="rounded bg-slate-100 px-1 text-[11px] text-slate-700 dark:bg-slate-800 dark:text-slate-200">
            {part}
          </code>
        ) : (
          part
        ),
      )}
    </>
  );
}

const numberInput =
  'h-8 w-20 rounded-md border border-slate-300 bg-white px-2 text-right font-mono text-sm tabular-nums text-slate-900 shadow-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500 invalid:border-red-400 invalid:text-red-700 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100 dark:invalid:border-red-500 dark:invalid:text-red-300';

function ParamInput({ param, value, onChange }: { param: FaultParamDescriptor; value: string | boolean; onChange: (value: string | boolean) => void }) {
  const id = useId();
  const range = param.min !== undefined || param.max !== undefined ? `${param.min ?? '…'} to ${param.max ?? '…'}${param.unit ? ` ${param.unit}` : ''}` : undefined;
  if (param.kind === 'boolean') {
    return (
      <label htmlFor={id} className="flex h-8 items-center gap-2 text-sm text-slate-700 dark:text-slate-200">
        <input
          id={id}
          type="checkbox"
          data-testid="fault-param"
          data-param={param.name}
          checked={value === true}
          onChange={(e) => onChange(e.target.checked)}
          className="size-4 accent-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:accent-indigo-400"
        />
        {param.label}
      </label>
    );
  }
  if (param.kind === 'choice') {
    return (
      <div className="flex flex-col gap-1">
        <label htmlFor={id} className="text-xs text-slate-500 dark:text-slate-400">
          {param.label}
        </label>
        <select
          id={id}
          data-testid="fault-param"
          data-param={param.name}
          value={String(value)}
          onChange={(e) => onChange(e.target.value)}
          className="h-8 rounded-md border border-slate-300 bg-white px-1.5 font-mono text-sm text-slate-900 shadow-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100"
        >
          {(param.choices ?? []).map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs text-slate-500 dark:text-slate-400" title={range}>
        {param.label}
      </label>
      <span className="flex items-center gap-1.5">
        <input
          id={id}
          type="number"
          inputMode="decimal"
          data-testid="fault-param"
          data-param={param.name}
          value={typeof value === 'string' ? value : ''}
          min={param.min}
          max={param.max}
          step={param.integer ? 1 : 'any'}
          title={range}
          onChange={(e) => onChange(e.target.value)}
          className={numberInput}
        />
        {param.unit && <span className="text-sm text-slate-500 dark:text-slate-400">{param.unit}</span>}
      </span>
    </div>
  );
}

/** One catalog fault for one target: its parameters (catalog defaults first) and the button that applies it now. */
export function FaultAction({
  fault,
  target,
  disabledReason,
  onApplied,
}: {
  fault: FaultDescriptor;
  target: string;
  disabledReason?: string;
  /** Called after the worker accepted the fault. */
  onApplied?: () => void;
}) {
  const [draft, setDraft] = useState<ParamDraft>(() => defaultDraft(fault));
  const [pending, setPending] = useState(false);
  const busy = useApp((s) => s.busy);
  const apply = async (): Promise<void> => {
    setPending(true);
    try {
      if (await applyFault({ fault: fault.id, target, params: draftToParams(fault, draft) }, fault.label)) onApplied?.();
    } finally {
      setPending(false);
    }
  };

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-end gap-x-3 gap-y-2">
        {fault.params.map((p) => (
          <ParamInput key={p.name} param={p} value={draft[p.name] ?? ''} onChange={(value) => setDraft((d) => ({ ...d, [p.name]: value }))} />
        ))}
        <span className="ml-auto flex items-center gap-1.5">
          <button
            type="button"
            data-testid="fault-branch-button"
            data-fault={fault.id}
            disabled={pending || busy || disabledReason !== undefined}
            title={disabledReason ?? `Compare: run B is this run until now, then takes this fault; the charts show where the two part`}
            onClick={() => {
              void startFaultBranch({ fault: fault.id, target, params: draftToParams(fault, draft) }, fault.label);
              onApplied?.();
            }}
            className={`${smallButton} h-8`}
          >
            In B only
          </button>
          <button
            type="button"
            data-testid="fault-button"
            data-fault={fault.id}
            disabled={pending || busy || disabledReason !== undefined}
            title={disabledReason ?? `${fault.label} ${target} now`}
            onClick={() => void apply()}
            className={faultButton}
          >
            <span aria-hidden="true">{fault.icon}</span>
            {fault.label}
          </button>
        </span>
      </div>
      <p className="text-xs leading-snug text-slate-500 dark:text-slate-400">
        <Description text={fault.description} />
      </p>
    </div>
  );
}
