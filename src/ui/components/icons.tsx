import type { ReactNode } from 'react';

/** Small stroke icons drawn inline (no icon font, nothing fetched). */
function Icon({ children, className = 'size-5' }: { children: ReactNode; className?: string }) {
  return (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" className={className} aria-hidden="true">
      {children}
    </svg>
  );
}

export const PlayIcon = () => (
  <Icon>
    <path d="M7 4.5v15l12-7.5z" fill="currentColor" />
  </Icon>
);
export const PauseIcon = () => (
  <Icon>
    <rect x="6" y="4.5" width="4" height="15" rx="1" fill="currentColor" stroke="none" />
    <rect x="14" y="4.5" width="4" height="15" rx="1" fill="currentColor" stroke="none" />
  </Icon>
);
export const StepIcon = () => (
  <Icon>
    <path d="M5 5v14l10-7z" fill="currentColor" />
    <path d="M19 5v14" />
  </Icon>
);
export const ResetIcon = () => (
  <Icon>
    <path d="M4 12a8 8 0 1 0 2.5-5.8" />
    <path d="M4 4v5h5" />
  </Icon>
);
export const MinusIcon = () => (
  <Icon className="size-4">
    <path d="M5 12h14" />
  </Icon>
);
export const PlusIcon = () => (
  <Icon className="size-4">
    <path d="M12 5v14M5 12h14" />
  </Icon>
);
export const FolderIcon = () => (
  <Icon className="size-4">
    <path d="M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z" />
  </Icon>
);
export const SunIcon = () => (
  <Icon>
    <circle cx="12" cy="12" r="4" />
    <path d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
  </Icon>
);
export const MoonIcon = () => (
  <Icon>
    <path d="M20 14.5A8 8 0 0 1 9.5 4a8 8 0 1 0 10.5 10.5z" />
  </Icon>
);
export const FitIcon = () => (
  <Icon className="size-4">
    <path d="M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5" />
  </Icon>
);
export const AlertIcon = () => (
  <Icon className="size-5 shrink-0">
    <path d="M12 3 2 20h20z" />
    <path d="M12 10v4M12 17h.01" />
  </Icon>
);
export const CloseIcon = () => (
  <Icon className="size-4">
    <path d="M6 6l12 12M18 6 6 18" />
  </Icon>
);
export const CheckIcon = () => (
  <Icon className="size-3.5 shrink-0">
    <path d="M5 12.5 10 17 19 7" />
  </Icon>
);
export const CrossIcon = () => (
  <Icon className="size-3.5 shrink-0">
    <path d="M7 7l10 10M17 7 7 17" />
  </Icon>
);
export const ChevronUpIcon = ({ className = 'size-4' }: { className?: string }) => (
  <Icon className={className}>
    <path d="M6 15l6-6 6 6" />
  </Icon>
);

export const DownloadIcon = () => (
  <Icon>
    <path d="M12 4v11m0 0-4.5-4.5M12 15l4.5-4.5M5 19.5h14" />
  </Icon>
);

export const LinkIcon = () => (
  <Icon>
    <path d="M10 14a4 4 0 0 0 5.66 0l3-3a4 4 0 0 0-5.66-5.66l-1 1M14 10a4 4 0 0 0-5.66 0l-3 3a4 4 0 0 0 5.66 5.66l1-1" />
  </Icon>
);
export const ExternalIcon = ({ className = 'size-4' }: { className?: string }) => (
  <Icon className={className}>
    <path d="M14 4h6v6M20 4l-9 9M18 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1h5" />
  </Icon>
);
export const PresentIcon = () => (
  <Icon>
    <rect x="3" y="4" width="18" height="12" rx="1.5" />
    <path d="M12 16v4M8 20h8" />
  </Icon>
);
export const FullscreenIcon = () => (
  <Icon>
    <path d="M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5" />
  </Icon>
);
export const LaserIcon = () => (
  <Icon>
    <circle cx="12" cy="12" r="3" fill="currentColor" />
    <path d="M12 3v3M12 18v3M3 12h3M18 12h3" />
  </Icon>
);
export const PreviousIcon = () => (
  <Icon>
    <path d="M15 5l-7 7 7 7" />
  </Icon>
);
export const NextIcon = () => (
  <Icon>
    <path d="M9 5l7 7-7 7" />
  </Icon>
);
export const EditIcon = () => (
  <Icon>
    <path d="M4 20h4L19 9l-4-4L4 16v4zM13.5 6.5l4 4" />
  </Icon>
);
/** Bars of falling height: a ranked table. */
export const SweepIcon = () => (
  <Icon>
    <path d="M4 6h16M4 11h11M4 16h7M4 21h3" />
  </Icon>
);
