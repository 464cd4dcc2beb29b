import { appStore, notify, showError, type Notice } from '../../state/app-store';
import { pruneSessions, readSessions, SESSION_MAX_AGE_DAYS, sessionName, sessionToRestore, setAside, type EditorDraft, type SavedSession } from '../../state/sessions';
import { shareQuery } from '../../state/share-link';
import { editorStore, editText } from '../../state/editor';
import { checkFixNames, compareProblem } from '../../state/fix-selection';
import { parseScenarioIndex, type ScenarioEntry } from '../../state/scenario-index';
import { echo } from '../../sim';
import { parseUrlParams, type UrlParams } from '../../state/url-params';
import { selectEntity } from '../../state/selection';
import { setZoom } from '../../state/timeline';
import { loadScenario, play, replay, setFixes, setSpeed, startWorker, type LoadRequest } from './sim-client';
import { storedTheme } from './theme';
import { enterPresenter } from '../presenter/presenter';
import { openCompare, startCompare, startFaultBranch } from '../timeline/compare-client';
import { startAutosave } from './autosave';
import { joinTabs } from './tabs';
import { counted } from '../components/format';

/** The overrides and timeline additions a link asks the scenario to be loaded with. */
function additions(params: UrlParams): Pick<LoadRequest, 'sets' | 'timeline'> {
  return { ...(params.sets ? { sets: params.sets } : {}), ...(params.timeline ? { timeline: params.timeline } : {}) };
}

/** Fetches a shipped scenario (relative URL, so the built app works from any folder) and loads it. */
export async function loadShipped(file: string, seed?: number, extra: Pick<LoadRequest, 'sets' | 'timeline'> = {}): Promise<boolean> {
  let text: string;
  try {
    const response = await fetch(`scenarios/${encodeURIComponent(file)}`);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    text = await response.text();
  } catch (error) {
    showError({
      title: `Could not fetch ${file}`,
      message: `scenarios/${file}: ${(error as Error).message}`,
      restartable: false,
      kind: 'input',
    });
    return false;
  }
  return loadScenario({ text, fileName: file, pickerValue: file, ...(seed === undefined ? {} : { seed }), ...extra });
}

async function fetchIndex(): Promise<ScenarioEntry[]> {
  const response = await fetch('scenarios/index.json');
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return parseScenarioIndex(await response.json());
}

let started = false;

/**
 * Reads the URL, lists the shipped scenarios and loads the chosen one, ready to play. Runs once per page. Whatever goes
 * wrong on the way is shown with the gallery open, so the app always offers a way on.
 */
export async function startApp(): Promise<void> {
  if (started) return;
  started = true;
  try {
    await start();
  } catch (error) {
    showError({ title: 'Netmortem could not open what the link asked for', message: echo(String(error)), restartable: false, kind: 'input' });
    appStore.setState({ gallery: {} });
  }
}

async function start(): Promise<void> {
  appStore.setState({ theme: storedTheme() });
  startWorker();

  const linked = parseUrlParams(window.location.search);
  let params = linked;
  const problems = [...params.errors];
  if (params.speed !== undefined) setSpeed(params.speed);

  let scenarios: ScenarioEntry[] = [];
  const [tabs] = await Promise.all([
    // An embed in a wiki page is a view, not a place where work is kept.
    params.embed ? null : joinTabs(),
    fetchIndex().then(
      (list) => (scenarios = list),
      (error: unknown) => problems.push(`scenarios/index.json: ${(error as Error).message}`),
    ),
  ]);
  appStore.setState({ scenarios });

  const notes: Notice[] = [];
  if (tabs) notes.push(...keepSessions(tabs.tab, carriesRun(linked)));
  // Opened without a run in the link, a tab comes back to the run it left (a reload) or one a closed tab left.
  const choice = tabs && !carriesRun(linked) ? sessionToRestore(storedSessions(), tabs.tab, tabs.open) : null;
  if (choice?.kind === 'restore' && choice.session.run) {
    params = { ...parseUrlParams(`?${shareQuery(choice.session.run)}`), present: linked.present, autoplay: linked.autoplay };
    // A speed in the address wins over the one the session was left at.
    if (linked.speed === undefined && params.speed !== undefined) setSpeed(params.speed);
  }

  let file = scenarios[0]?.file;
  if (params.scenario !== undefined) {
    if (scenarios.some((s) => s.file === params.scenario)) file = params.scenario;
    else if (scenarios.length > 0) {
      problems.push(`scenario: no shipped scenario ${echo(params.scenario)} (available: ${scenarios.map((s) => s.file).join(', ')})`);
    }
  }

  const report = (): void => {
    if (problems.length === 0) return;
    showError({ title: 'Some settings could not be used', message: problems.join('\n'), restartable: false, kind: 'input' });
  };
  report();
  let ok: boolean;
  if (params.inline) {
    const { name, text } = params.inline;
    ok = await loadScenario({
      text,
      fileName: name,
      pickerValue: '',
      ...(params.seed === undefined ? {} : { seed: params.seed }),
      ...additions(params),
    });
  } else if (file !== undefined) ok = await loadShipped(file, params.seed, additions(params));
  else return;
  const summary = appStore.getState().summary;
  // The scenario's fix names are known only once the worker has loaded it; the known ones are then applied by a reload.
  if (ok && summary && params.fixes.length > 0) {
    const checked = checkFixNames(summary, params.fixes);
    if (checked.problems.length > 0) {
      problems.push(...checked.problems);
      report();
    }
    if (checked.fixes.length > 0) ok = await setFixes(checked.fixes);
  }
  // A shared link replays the run to its moment (a time, or a chapter's start), the faults applied at their times, and
  // pauses there; a link whose run is damaged replays nothing, so no half of a run passes for the shared one.
  let startS = params.t;
  if (ok && summary && startS !== undefined && startS > summary.durationSeconds) {
    problems.push(`t: ${appStore.getState().loadedFile} runs ${summary.durationSeconds} s; the link asks for ${startS} s`);
    report();
  }
  if (ok && summary && params.chapter !== undefined) {
    const chapter = summary.chapters[params.chapter - 1];
    if (chapter) startS = chapter.at;
    else {
      problems.push(`chapter: ${appStore.getState().loadedFile} has ${counted(summary.chapters.length, 'chapter')}; the link asks for chapter ${params.chapter}`);
      report();
    }
  }
  const damaged = problems.filter((e) => /^(src|name|t|faults|timeline(\[\d+\]\S*)?|set(\[\d+\])?|chapter):/.test(e));
  if (damaged.length > 0) appStore.setState({ gallery: { reason: damaged.join('\n') } });
  if (ok && damaged.length === 0 && (startS !== undefined || params.faults !== undefined)) ok = (await replay((startS ?? 0) * 1e6, params.faults ?? [])) !== null;
  // Selected, not revealed: the picture opens whole, as the sender's did, rather than zoomed into the one box.
  if (ok && params.select !== undefined) selectEntity(params.select);
  if (ok && params.zoom) setZoom(params.zoom);
  if (ok && summary && params.compare) {
    const { fixes, catalog } = appStore.getState();
    const compare = params.compare;
    const problem = compareProblem(summary, catalog, fixes, compare);
    if (problem) {
      problems.push(problem);
      report();
    } else {
      openCompare();
      if ('fault' in compare) {
        const label = catalog.find((f) => f.id === compare.fault.fault)!.label;
        void startFaultBranch(compare.fault, label, Math.round(compare.branchS * 1e6));
      } else void startCompare(compare.fix, compare.branchS === undefined ? null : Math.round(compare.branchS * 1e6));
    }
  }
  if (ok && params.present) enterPresenter();
  if (ok && params.autoplay) play();
  if (choice?.kind === 'restore' && (ok || !choice.session.run)) notes.unshift(restoredNotice(choice.session, scenarios[0]?.file));
  const draft = choice?.kind === 'restore' ? choice.session.draft : undefined;
  if (draft) editorStore.setState({ text: draft.text, fileName: draft.fileName, open: draft.open, undo: [], redo: [] });
  // A scenario that came in the link and did not load is gone from the address bar below; the editor keeps it to mend.
  else if (!ok && params.inline && editorStore.getState().text === '') editorStore.setState({ text: params.inline.text, fileName: params.inline.name, undo: [], redo: [] });
  if (choice?.kind === 'other-tab-open') notes.unshift({ message: 'Netmortem is open in another tab with its own run. This tab keeps a separate one, so neither overwrites the other.' });
  const action = notes.find((n) => n.action)?.action;
  if (notes.length > 0) notify({ message: notes.map((n) => n.message).join(' '), ...(action ? { action } : {}) });
  if (tabs) {
    startAutosave(tabs.tab);
    // The run now lives in this tab's saved session, which a reload restores with everything done since; a link left
    // in the address bar would win over it and lose that. Share writes a new link.
    window.history.replaceState(null, '', window.location.pathname);
  }
}

/** Whether a link names a run of its own; one that does wins over any saved run. */
function carriesRun(p: UrlParams): boolean {
  return (
    p.scenario !== undefined ||
    p.inline !== undefined ||
    p.seed !== undefined ||
    p.fixes.length > 0 ||
    p.t !== undefined ||
    p.faults !== undefined ||
    p.sets !== undefined ||
    p.timeline !== undefined ||
    p.chapter !== undefined
  );
}

// Enough names for the user to recognise what went; the rest are counted.
const NAMED = 3;

/**
 * Before this tab saves: forgets sessions left alone too long, and when a link is about to take this tab's place, sets
 * its draft aside as a session of its own. Returns what the user should be told.
 */
function keepSessions(tab: string, linked: boolean): Notice[] {
  const notes: Notice[] = [];
  try {
    const pruned = pruneSessions(localStorage, Date.now(), tab);
    if (pruned.length > 0) {
      const names = pruned.slice(0, NAMED).map((s) => `${sessionName(s)} of ${new Date(s.savedAt).toLocaleDateString()}`);
      const more = pruned.length > NAMED ? ` and ${pruned.length - NAMED} more` : '';
      notes.push({ message: `Forgot ${counted(pruned.length, 'saved run')} left for over ${SESSION_MAX_AGE_DAYS} days: ${names.join(', ')}${more}.` });
    }
    const own = linked ? readSessions(localStorage).find((s) => s.tab === tab) : undefined;
    const draft = own?.draft;
    if (own && draft) {
      const kept = setAside(localStorage, own);
      notes.push(
        typeof kept === 'string'
          ? { message: `Your draft of ${draft.fileName} in this tab could not be set aside (${kept}); it is in the editor.` }
          : {
              message: `The link opened in place of this tab's ${own.run ? `run of ${sessionName(own)}` : 'draft'}; your draft of ${draft.fileName} is kept and comes back in a new tab.`,
              action: { label: 'Open the draft', run: () => openDraft(draft) },
            },
      );
      if (typeof kept === 'string') editorStore.setState({ text: draft.text, fileName: draft.fileName, undo: [], redo: [] });
    }
  } catch (error) {
    notes.push({ message: `Saved runs could not be read (${(error as Error).message}).` });
  }
  return notes;
}

/** Opens a draft set aside in the editor; what the editor held stays one undo away. */
function openDraft(draft: EditorDraft): void {
  editText(draft.text);
  editorStore.setState({ fileName: draft.fileName, open: true });
}

function storedSessions(): SavedSession[] {
  try {
    return readSessions(localStorage);
  } catch {
    return [];
  }
}

function restoredNotice(session: SavedSession, first: string | undefined): Notice {
  const { run, draft } = session;
  const edits = draft ? `your draft of ${draft.fileName} is in the editor` : '';
  const faults = !run || run.faults.length === 0 ? '' : `, with the ${counted(run.faults.length, 'fault')} you applied`;
  const where = run ? `${sessionName(session)} at ${(run.t / 1e6).toFixed(1)} s${faults}${edits && `; ${edits}`}` : edits;
  return {
    message: `Back where you left off: ${where}.`,
    ...(first === undefined ? {} : { action: { label: 'Start afresh', run: () => void loadShipped(first) } }),
  };
}
