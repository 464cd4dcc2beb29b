import { useState } from 'react';
import { useApp } from '../../state/app-store';
import { NO_CHAPTERS } from '../scenario/chapters';
import { EMBED_MIN, embedQuery, embedSizeProblem, iframeSnippet, type SharedRun } from '../../state/share-link';
import { appUrl } from '../services/run-link';
import { CopyField } from '../components/copy-field';
import { textField as field } from '../components/styles';

/** The Share dialog's second half: an iframe snippet for a wiki page, sized, starting at a chapter, playing or not. */
export function EmbedSection({ run }: { run: SharedRun }) {
  const chapters = useApp((s) => s.summary?.chapters ?? NO_CHAPTERS);
  const title = useApp((s) => s.summary?.title ?? 'a run');
  const [width, setWidth] = useState('800');
  const [height, setHeight] = useState('500');
  // '' starts where the run is now; otherwise a chapter number.
  const [start, setStart] = useState('');
  const [autoplay, setAutoplay] = useState(false);
  const problem = embedSizeProblem(width, height);
  const src = appUrl(embedQuery(run, { ...(start === '' ? {} : { chapter: Number(start) }), autoplay }));
  const snippet = problem === null ? iframeSnippet(src, { width: Number(width), height: Number(height) }, `Netmortem: ${title}`) : '';

  return (
    <section aria-labelledby="embed-title" className="mt-4 border-t border-slate-200 pt-3 dark:border-slate-800" data-testid="embed-section">
      <h3 id="embed-title" className="text-sm font-semibold text-slate-900 dark:text-white">
        Embed in a wiki page
      </h3>
      <p className="mb-2 text-xs text-slate-500 dark:text-slate-400">
        The picture, the timeline and the controls only, from {EMBED_MIN.width}×{EMBED_MIN.height} up, with a link to open the run here.
      </p>
      <div className="flex flex-wrap items-end gap-3 text-xs text-slate-600 dark:text-slate-300">
        <label className="flex flex-col gap-0.5">
          width
          <input
            className={`${field} w-20`}
            inputMode="numeric"
            value={width}
            aria-invalid={problem?.startsWith('width') ?? false}
            onChange={(e) => setWidth(e.target.value)}
            data-testid="embed-width"
          />
        </label>
        <label className="flex flex-col gap-0.5">
          height
          <input
            className={`${field} w-20`}
            inputMode="numeric"
            value={height}
            aria-invalid={problem?.startsWith('height') ?? false}
            onChange={(e) => setHeight(e.target.value)}
            data-testid="embed-height"
          />
        </label>
        <label className="flex min-w-0 flex-1 flex-col gap-0.5">
          starts
          <select className={field} value={start} onChange={(e) => setStart(e.target.value)} data-testid="embed-start">
            <option value="">at {(run.t / 1e6).toFixed(1)} s, where the run is now</option>
            {chapters.map((c, i) => (
              <option key={i} value={String(i + 1)}>
                chapter {i + 1}: {c.title}
              </option>
            ))}
          </select>
        </label>
        <label className="flex h-8 cursor-pointer items-center gap-1.5">
          <input type="checkbox" checked={autoplay} onChange={(e) => setAutoplay(e.target.checked)} className="size-3.5 accent-indigo-600" data-testid="embed-autoplay" />
          plays on open
        </label>
      </div>
      {problem !== null ? (
        <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-300" data-testid="embed-problem">
          {problem}
        </p>
      ) : (
        <div className="mt-2">
          <CopyField value={snippet} label="HTML to paste into the wiki page" testId="embed-snippet" rows={3} />
        </div>
      )}
    </section>
  );
}
