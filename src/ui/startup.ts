import { appStore, showError } from '../state/app-store';
import { checkFixNames } from '../state/fix-selection';
import { parseScenarioIndex, type ScenarioEntry } from '../state/scenario-index';
import { parseUrlParams } from '../state/url-params';
import { loadScenario, play, replay, setFixes, setSpeed, startWorker } from './sim-client';
import { storedTheme } from './theme';
import { enterPresenter } from './presenter';

/** Fetches a shipped scenario (relative URL, so the built app works from any folder) and loads it. */
export async function loadShipped(file: string, seed?: number): Promise<boolean> {
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
  return loadScenario({ text, fileName: file, pickerValue: file, ...(seed === undefined ? {} : { seed }) });
}

async function fetchIndex(): Promise<ScenarioEntry[]> {
  const response = await fetch('scenarios/index.json');
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return parseScenarioIndex(await response.json());
}

let started = false;

/** Reads the URL, lists the shipped scenarios and loads the chosen one, ready to play. Runs once per page. */
export async function startApp(): Promise<void> {
  if (started) return;
  started = true;
  appStore.setState({ theme: storedTheme() });
  startWorker();

  const params = parseUrlParams(window.location.search);
  const problems = [...params.errors];
  if (params.speed !== undefined) setSpeed(params.speed);

  let scenarios: ScenarioEntry[] = [];
  try {
    scenarios = await fetchIndex();
  } catch (error) {
    problems.push(`scenarios/index.json: ${(error as Error).message}`);
  }
  appStore.setState({ scenarios });

  let file = scenarios[0]?.file;
  if (params.scenario !== undefined) {
    if (scenarios.some((s) => s.file === params.scenario)) file = params.scenario;
    else if (scenarios.length > 0) {
      problems.push(`scenario: no shipped scenario "${params.scenario}" (available: ${scenarios.map((s) => s.file).join(', ')})`);
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
    ok = await loadScenario({ text, fileName: name, pickerValue: '', ...(params.seed === undefined ? {} : { seed: params.seed }) });
  } else if (file !== undefined) ok = await loadShipped(file, params.seed);
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
  if (ok && summary && params.chapter !== undefined) {
    const chapter = summary.chapters[params.chapter - 1];
    if (chapter) startS = chapter.at;
    else {
      problems.push(`chapter: ${appStore.getState().loadedFile} has ${summary.chapters.length} chapter${summary.chapters.length === 1 ? '' : 's'}; the link asks for chapter ${params.chapter}`);
      report();
    }
  }
  const damaged = problems.filter((e) => /^(src|name|t|faults|chapter):/.test(e));
  if (damaged.length > 0) appStore.setState({ gallery: { reason: damaged.join('\n') } });
  if (ok && damaged.length === 0 && (startS !== undefined || params.faults !== undefined)) ok = await replay((startS ?? 0) * 1e6, params.faults ?? []);
  if (ok && params.present) enterPresenter();
  if (ok && params.autoplay) play();
}
