import { Component, type ReactNode } from 'react';
import { appStore } from '../../state/app-store';
import { editorStore } from '../../state/editor';
import { echo } from '../../sim';
import { button, primaryButton } from '../components/styles';
import { exitPresenter } from '../presenter/presenter';

interface State {
  error: unknown;
}

/**
 * Catches an error thrown while drawing any part of the app and shows it with a way back, so a failure never leaves a
 * blank page. The way back draws the sandbox again over the scenario gallery, out of the editor and presenter views.
 */
export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error };
  }

  private openGallery = (): void => {
    editorStore.setState({ open: false });
    exitPresenter();
    appStore.setState({ gallery: {} });
    this.setState({ error: null });
  };

  override render(): ReactNode {
    const { error } = this.state;
    if (error === null) return this.props.children;
    return (
      <div role="alert" data-testid="app-error" className="mx-auto flex max-w-2xl flex-col gap-3 p-6 text-slate-800 dark:text-slate-100">
        <h1 className="text-lg font-semibold">Something went wrong while drawing Netmortem</h1>
        <p data-testid="app-error-message" className="font-mono text-sm break-words text-red-800 dark:text-red-200">
          {echo(error instanceof Error ? error.message : String(error))}
        </p>
        <p className="text-sm">Your run and your editor&apos;s draft are saved in this browser. Open the scenario gallery to carry on, or reload the page.</p>
        <div className="flex gap-2">
          <button type="button" className={`${primaryButton} h-9 px-3 text-sm font-semibold`} data-testid="app-error-gallery" onClick={this.openGallery}>
            Open the scenario gallery
          </button>
          <button type="button" className={button} data-testid="app-error-reload" onClick={() => window.location.reload()}>
            Reload
          </button>
        </div>
      </div>
    );
  }
}
