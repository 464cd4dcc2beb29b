import { useRef, useState } from 'react';
import { editorStore, editText } from '../../state/editor';
import { IMPORT_DEFAULTS, importManifests, importOptionProblem, type ImportOptions, type ManifestImport } from '../../state/manifest-import';
import { Modal } from '../components/modal';
import { accentButton, button } from '../components/styles';

/** Paste Kubernetes manifests (or open them from a file) and take the topology built from them into the editor. */
const OPTION_FIELDS = [
  { name: 'nodes', label: 'Nodes', hint: 'at least: more come when the pods need them', step: 1, min: 1, max: IMPORT_DEFAULTS.maxNodes },
  {
    name: 'requestsPerSecond',
    label: 'Client requests per second',
    hint: 'what each generated client sends into an entry point',
    step: 'any',
    min: IMPORT_DEFAULTS.minRate,
    max: IMPORT_DEFAULTS.maxRate,
  },
] as const;

type OptionName = keyof ImportOptions;

/** An option's problem with the field's label in place of its name, as the person sees it. */
function optionProblem(name: OptionName, raw: string): string | null {
  const label = OPTION_FIELDS.find((f) => f.name === name)!.label;
  if (raw.trim() === '') return `${label}: give a number`;
  const problem = importOptionProblem(name, Number(raw));
  return problem && `${label}: ${problem.slice(problem.indexOf(': ') + 2)}`;
}

/** Paste Kubernetes manifests (or open them from a file) and take the topology built from them into the editor. */
export function ImportDialog({ onClose }: { onClose: () => void }) {
  const [source, setSource] = useState('');
  const [options, setOptions] = useState<Record<OptionName, string>>({ nodes: String(IMPORT_DEFAULTS.nodes), requestsPerSecond: String(IMPORT_DEFAULTS.requestsPerSecond) });
  const [result, setResult] = useState<ManifestImport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ref = useRef<HTMLDivElement>(null);

  const convert = (text: string, raw: Record<OptionName, string> = options): void => {
    setSource(text);
    setOptions(raw);
    const problem = optionProblem('nodes', raw.nodes) ?? optionProblem('requestsPerSecond', raw.requestsPerSecond);
    if (problem !== null) {
      setResult(null);
      setError(problem);
      return;
    }
    try {
      setResult(text.trim() === '' ? null : importManifests(text, { nodes: Number(raw.nodes), requestsPerSecond: Number(raw.requestsPerSecond) }));
      setError(null);
    } catch (e) {
      setResult(null);
      setError((e as Error).message);
    }
  };

  return (
    <Modal ref={ref} title="Import Kubernetes manifests" testId="import-dialog" width="max-w-3xl" onClose={onClose}>
      <p className="mb-2 text-sm text-slate-600 dark:text-slate-300">
        Deployments and DaemonSets (with their TCP and HTTP readiness and liveness probes), Services (with their externalTrafficPolicy) and HorizontalPodAutoscalers become a sandbox
        topology. The Services a container is told about in its environment or a ConfigMap become its calls, and load enters at LoadBalancer and NodePort Services, Ingress backends and
        Services nothing calls. Anything else is listed below as not understood.
      </p>
      <div className="flex gap-2">
        <textarea
          autoFocus
          value={source}
          onChange={(e) => convert(e.target.value)}
          rows={12}
          spellCheck={false}
          placeholder={'apiVersion: apps/v1\nkind: Deployment\n…\n---\napiVersion: v1\nkind: Service\n…'}
          aria-label="Kubernetes manifests"
          data-testid="import-source"
          className="min-w-0 flex-1 resize-y rounded-md border border-slate-300 bg-slate-50 p-2 font-mono text-xs text-slate-800 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-100"
        />
      </div>
      <div className="mt-2 flex flex-wrap items-end gap-4">
        <label className={`${button} cursor-pointer has-focus-visible:outline-2 has-focus-visible:outline-indigo-500`}>
          Open manifest file…
          <input type="file" accept=".yaml,.yml,.json" className="sr-only" data-testid="import-file" onChange={async (e) => e.target.files?.[0] && convert(await e.target.files[0].text())} />
        </label>
        {OPTION_FIELDS.map((f) => (
          <label key={f.name} className="flex flex-col text-sm text-slate-700 dark:text-slate-200" title={`${f.label}: ${f.hint}`}>
            {f.label}
            <input
              type="number"
              inputMode="decimal"
              step={f.step}
              min={f.min}
              max={f.max}
              value={options[f.name]}
              onChange={(e) => convert(source, { ...options, [f.name]: e.target.value })}
              data-testid={`import-option-${f.name}`}
              className="mt-0.5 w-28 rounded-md border border-slate-300 bg-white px-2 py-1 font-mono text-sm text-slate-800 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-100"
            />
          </label>
        ))}
      </div>
      {error !== null && (
        <p role="alert" className="mt-2 font-mono text-sm text-red-700 dark:text-red-300" data-testid="import-error">
          {error}
        </p>
      )}
      {result && result.calls.length > 0 && (
        <div className="mt-3 max-h-32 overflow-y-auto text-sm">
          <h3 className="font-semibold text-slate-800 dark:text-slate-100">Calls read from the manifests ({result.calls.length})</h3>
          <ul className="mt-1 list-disc pl-5 font-mono text-xs text-slate-700 dark:text-slate-300" data-testid="import-calls">
            {result.calls.map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ul>
        </div>
      )}
      {result && (
        <div className="mt-3 grid max-h-48 grid-cols-2 gap-3 overflow-y-auto text-sm">
          <div>
            <h3 className="font-semibold text-slate-800 dark:text-slate-100">Added so it plays</h3>
            <ul className="mt-1 list-disc pl-5 text-slate-700 dark:text-slate-300" data-testid="import-added">
              {result.added.map((line, i) => (
                <li key={i}>{line}</li>
              ))}
            </ul>
          </div>
          <div>
            <h3 className="font-semibold text-slate-800 dark:text-slate-100">Not understood ({result.notUnderstood.length})</h3>
            <ul className="mt-1 list-disc pl-5 text-amber-800 dark:text-amber-300" data-testid="import-not-understood">
              {result.notUnderstood.map((line, i) => (
                <li key={i}>{line}</li>
              ))}
            </ul>
          </div>
        </div>
      )}
      <div className="mt-3 flex justify-end gap-2">
        <button type="button" className={button} onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          className={accentButton}
          disabled={!result}
          data-testid="import-use"
          onClick={() => {
            if (!result) return;
            editText(result.scenarioText);
            editorStore.setState({ fileName: 'imported.yaml' });
            onClose();
          }}
        >
          Use this topology
        </button>
      </div>
    </Modal>
  );
}
