import { useRef, useState } from 'react';
import { appStore, showError, useApp } from '../../state/app-store';
import { frameStore } from '../../state/frame-store';
import { exportName } from '../../worker/protocol';
import { download } from '../services/download';
import { chartsPicture, pictureToPng, topologyPicture } from '../services/picture';
import { useMenu } from '../components/menu';
import { exportRun } from '../services/sim-client';
import { DownloadIcon } from '../components/icons';
import { iconButton } from '../components/styles';

interface Item {
  id: string;
  label: string;
  detail: string;
  run: () => Promise<unknown>;
}

/** Saves a picture of what is on screen, named like the worker's exports. */
async function savePicture(which: 'topology' | 'charts', format: 'svg' | 'png'): Promise<void> {
  const { summary, seed } = appStore.getState();
  const picture = which === 'topology' ? topologyPicture() : chartsPicture();
  if (!summary || seed === null || !picture) {
    showError({ title: 'Could not export', message: `There is no ${which} on screen to picture.`, restartable: false, kind: 'input' });
    return;
  }
  const name = `${exportName(summary.id, seed, frameStore.getState().t)}-${which}.${format}`;
  if (format === 'svg') download(name, 'image/svg+xml', picture.svg);
  else download(name, 'image/png', await pictureToPng(picture));
}

const ITEMS: Item[] = [
  { id: 'json', label: 'Run report', detail: 'JSON: totals, series, expectations, why chains, digest', run: () => exportRun('json') },
  { id: 'csv', label: 'Metrics', detail: 'CSV: every series, one row per simulated second', run: () => exportRun('csv') },
  { id: 'pcap', label: 'Packets', detail: 'pcap for Wireshark: the latest 200,000 packets sent', run: () => exportRun('pcap') },
  { id: 'topology-png', label: 'Picture (PNG)', detail: 'the topology as drawn now, traffic included', run: () => savePicture('topology', 'png') },
  { id: 'topology-svg', label: 'Picture (SVG)', detail: 'the topology as drawn now, without the traffic layer', run: () => savePicture('topology', 'svg') },
  { id: 'charts-png', label: 'Charts (PNG)', detail: "the timeline's charts, stacked", run: () => savePicture('charts', 'png') },
  { id: 'charts-svg', label: 'Charts (SVG)', detail: "the timeline's charts, stacked", run: () => savePicture('charts', 'svg') },
];

/** The header's Export menu: the run so far as a file, or a picture of what is on screen. Arrow keys move, Escape closes, focus returns to the button. */
export function ExportMenu() {
  const [open, setOpen] = useState(false);
  const loaded = useApp((s) => s.summary !== null);
  const root = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);

  const onKeyDown = useMenu(root, open, (why) => {
    setOpen(false);
    if (why === 'escape') trigger.current?.focus();
  });

  return (
    <div ref={root} className="relative" onKeyDown={onKeyDown}>
      <button
        ref={trigger}
        type="button"
        className={iconButton}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label="Export the run so far"
        title="Export the run so far: report, metrics, packets"
        disabled={!loaded}
        onClick={() => setOpen((o) => !o)}
        data-testid="export-button"
      >
        <DownloadIcon />
      </button>
      {open && (
        <div
          role="menu"
          aria-label="Export the run so far"
          className="absolute right-0 z-30 mt-1 w-80 rounded-md border border-slate-200 bg-white p-1 shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          {ITEMS.map((item) => (
            <button
              key={item.id}
              type="button"
              role="menuitem"
              data-testid={`export-${item.id}`}
              className="block w-full rounded px-3 py-2 text-left hover:bg-slate-100 focus-visible:bg-slate-100 focus-visible:outline-none dark:hover:bg-slate-800 dark:focus-visible:bg-slate-800"
              onClick={() => {
                setOpen(false);
                trigger.current?.focus();
                void item.run();
              }}
            >
              <span className="block text-sm font-medium text-slate-800 dark:text-slate-100">{item.label}</span>
              <span className="block text-xs text-slate-500 dark:text-slate-400">{item.detail}</span>
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
