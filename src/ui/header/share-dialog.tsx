import { useEffect, useRef, useState } from 'react';
import { useApp } from '../../state/app-store';
import { MAX_LINK_CHARS, shareQuery, type SharedRun } from '../../state/share-link';
import { download } from '../services/download';
import { EmbedSection } from './embed-section';
import { LinkIcon } from '../components/icons';
import { Modal } from '../components/modal';
import { currentLoad } from '../services/sim-client';
import { appUrl, currentRun } from '../services/run-link';
import { button, iconButton } from '../components/styles';
import { CopyField } from '../components/copy-field';
import { counted } from '../components/format';
import { textWithRun } from '../services/run-text';

/** The header's Share button and its dialog: a link that replays this run to this moment, or a file when too long. */
export function ShareDialog() {
  const [run, setRun] = useState<SharedRun | null>(null);
  const loaded = useApp((s) => s.summary !== null);
  const dialog = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (run) dialog.current?.querySelector<HTMLInputElement>('input')?.select();
  }, [run]);

  const close = () => {
    setRun(null);
    trigger.current?.focus();
  };
  const link = run ? appUrl(shareQuery(run)) : '';
  const tooLong = link.length > MAX_LINK_CHARS;
  const load = currentLoad();

  return (
    <>
      <button
        ref={trigger}
        type="button"
        className={iconButton}
        aria-label="Share a link to this run"
        title="Share a link that replays this run to this moment"
        disabled={!loaded}
        onClick={() => setRun(currentRun())}
        data-testid="share-button"
      >
        <LinkIcon />
      </button>
      {run && (
        <Modal ref={dialog} title="Share this run" testId="share-dialog" width="max-w-xl" onClose={close}>
          <p className="mb-3 text-sm text-slate-600 dark:text-slate-300" data-testid="share-summary">
            Opens {'file' in run.scenario ? run.scenario.file : `${run.scenario.name} (carried in the link)`} with seed {run.seed}
            {run.fixes.length > 0 ? `, fixes ${run.fixes.join(', ')}` : ''}
            {run.sets && run.sets.length > 0 ? `, overrides ${run.sets.join(', ')}` : ''}
            {run.timeline && run.timeline.length > 0 ? `, ${counted(run.timeline.length, 'fault')} added to its timeline` : ''}
            {run.faults.length > 0 ? `, and the ${counted(run.faults.length, 'fault')} you applied at their times` : ''}, and replays it to {(run.t / 1e6).toFixed(1)} s, paused: the same
            run, to the same digest.
          </p>
          {tooLong ? (
            <div role="alert" className="space-y-2 text-sm text-amber-800 dark:text-amber-300" data-testid="share-too-long">
              <p>
                This link would be {link.length.toLocaleString('en-US')} characters, more than browsers and wikis keep reliably ({MAX_LINK_CHARS.toLocaleString('en-US')}). Download the run
                as a scenario file instead: the seed and your faults are written into it; open it with “Open file…”
                {run.fixes.length > 0 ? ` and tick ${run.fixes.join(', ')}` : ''}.
              </p>
              <button
                type="button"
                className={button}
                data-testid="share-download"
                onClick={async () => load && download(load.fileName.replace(/\.(ya?ml|json)$/, '') + '-shared.yaml', 'application/yaml', await textWithRun(load.text, run, 'the shared run'))}
              >
                Download the scenario file
              </button>
            </div>
          ) : (
            <CopyField value={link} label="Link to this run" testId="share-link" />
          )}
          {!tooLong && <EmbedSection run={run} />}
        </Modal>
      )}
    </>
  );
}
