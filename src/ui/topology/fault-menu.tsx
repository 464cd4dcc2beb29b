import { useRef } from 'react';
import type { FaultDescriptor } from '../../sim';
import { openFault } from '../../state/fault-placement';
import { useMenu } from '../components/menu';

export interface MenuState {
  x: number;
  y: number;
  /** The box the menu is for. */
  title: string;
  items: { fault: FaultDescriptor; target: string }[];
}

/** The faults a box takes, from a right-click or the context-menu key: arrows move, Enter picks, Escape closes. */
export function FaultMenu({ menu, onClose }: { menu: MenuState; onClose: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const onKeyDown = useMenu(ref, menu, onClose);

  return (
    <div
      ref={ref}
      role="menu"
      aria-label={`Faults for ${menu.title}`}
      data-testid="fault-menu"
      onKeyDown={onKeyDown}
      style={{ left: `min(${menu.x}px, calc(100vw - 17rem))`, top: `min(${menu.y}px, calc(100vh - ${2 + 2.25 * Math.max(1, menu.items.length)}rem))` }}
      className="fixed z-20 w-64 overflow-hidden rounded-lg border border-slate-300 bg-white py-1 shadow-xl dark:border-slate-700 dark:bg-slate-900"
    >
      <p className="truncate px-3 py-1 font-mono text-xs text-slate-500 dark:text-slate-400">{menu.title}</p>
      {menu.items.map(({ fault, target }) => (
        <button
          key={fault.id}
          type="button"
          role="menuitem"
          data-fault={fault.id}
          onClick={() => {
            onClose();
            openFault(fault, { target, x: menu.x, y: menu.y });
          }}
          className="flex w-full items-center gap-2 px-3 py-1.5 text-left text-sm text-slate-700 hover:bg-slate-100 focus-visible:bg-indigo-50 focus-visible:outline-none dark:text-slate-200 dark:hover:bg-slate-800 dark:focus-visible:bg-indigo-950"
        >
          <span aria-hidden="true" className="w-4 text-center text-red-600 dark:text-red-400">
            {fault.icon}
          </span>
          <span className="min-w-0 flex-1 truncate">{fault.label}</span>
          {target !== menu.title && <span className="truncate font-mono text-[11px] text-slate-400">{target}</span>}
        </button>
      ))}
      {menu.items.length === 0 && <p className="px-3 py-1.5 text-sm text-slate-500 dark:text-slate-400">No fault in the catalog takes this.</p>}
    </div>
  );
}
