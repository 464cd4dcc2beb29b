import { jumpsFor, measureCheckpoints, printCheckpoints, shippedDuration } from './checkpoints';
import { shippedScenarios } from '../src/cli/shipped';
import { runDemoBench } from './demo';
import { runHoldBench } from './hold';
import { LOADER_BAR_MS, printLoader, runLoaderBench } from './loader';
import { printPacketPath, runPacketPathBench } from './packet-path';
import { printReplay, printScaling, runItsNotDnsBench } from './its-not-dns';
import { printStateGraph, measureStateGraph } from './state-graph';
import { runUiBenches } from './ui';

// `npm run bench`: figures only, never pass/fail on timings. `npm run bench:ui` (argument `ui`) runs only the UI sections,
// `npm run bench:loader` (argument `loader`) only the loader on hostile input, `npm run bench:state` (argument `state`)
// only what a snapshot of a run would have to copy, `npm run bench:checkpoints` (argument `checkpoints`) only jumps
// back and forth on checkpoints.
const SELECTIONS = ['ui', 'loader', 'state', 'checkpoints'];
const only = process.argv[2];
if (only !== undefined && !SELECTIONS.includes(only)) {
  throw new Error(`unknown bench selection ${JSON.stringify(only)}; the selections are ${SELECTIONS.map((s) => JSON.stringify(s)).join(', ')}`);
}
console.log('Netmortem benchmarks\n');
if (only === 'loader') {
  runLoaderSection();
} else if (only === 'state') {
  runStateSection();
} else if (only === 'checkpoints') {
  await runCheckpointSection();
} else {
  if (only === undefined) runSimBenches();
  // A bar the UI misses prints FAIL but is a figure too; only a run that could not happen (no browser) exits non-zero.
  if (!(await runUiBenches())) process.exitCode = 1;
}

/** What a checkpoint copies of a run (issue 25), and any closure in its state, which a copy could not rebind. */
function runStateSection(): void {
  console.log("== A run's state graph: what a checkpoint copies, and closures a copy cannot rebind (there should be none) ==");
  printStateGraph(measureStateGraph('demo', 30));
  printStateGraph(measureStateGraph('its-not-dns', 100));
}

/** Issue 25's check: play, then jump back and forth; each jump's wall time, and the digest after against a straight run. */
async function runCheckpointSection(): Promise<void> {
  console.log("== Jumps on checkpoints: played at max speed on the worker's runner in Node, then each jump timed until the run stands at its target ==");
  const only = process.env['BENCH_CHECKPOINT_SCENARIOS']?.split(',');
  for (const { id } of shippedScenarios()) {
    if (only && !only.includes(id)) continue;
    const { playToS, jumpsS, checkS } = jumpsFor(id, shippedDuration(id));
    printCheckpoints(await measureCheckpoints(id, playToS, jumpsS, checkS));
  }
}

/** A duration from the environment, in simulated seconds. */
function envSeconds(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number of simulated seconds, got ${JSON.stringify(raw)}`);
  return n;
}

function runSimBenches(): void {
  console.log('== Event queue: Scheduler vs flatqueue (hold model) ==');
  runHoldBench();

  console.log('\n== CLI path on the demo scenario (load, create, run to the end; best of 5 after a warm-up) ==');
  const demo = runDemoBench();
  console.log(
    `${demo.scenario}: ${demo.simulatedSeconds} simulated s, ${demo.events.toLocaleString('en-US')} events in ${demo.wallMs.toFixed(1)} ms → ` +
      `${Math.round(demo.simSecondsPerWallSecond).toLocaleString('en-US')} simulated s per wall s, ` +
      `${Math.round(demo.eventsPerSecond).toLocaleString('en-US')} events/s`,
  );

  // Before the big replays, whose garbage would otherwise be collected inside these short timings.
  console.log();
  runLoaderSection();

  console.log('\n== Service discovery at scale (public/scenarios/service-discovery.yaml; best of 2 after a warm-up) ==');
  const discovery = runDemoBench('service-discovery', 2);
  console.log(
    `${discovery.scenario}: ${discovery.simulatedSeconds} simulated s, ${discovery.events.toLocaleString('en-US')} events in ${discovery.wallMs.toFixed(1)} ms → ` +
      `${Math.round(discovery.simSecondsPerWallSecond).toLocaleString('en-US')} simulated s per wall s, ` +
      `${Math.round(discovery.eventsPerSecond).toLocaleString('en-US')} events/s (${(discovery.eventsPerSecond / demo.eventsPerSecond).toFixed(2)}× the demo's rate)`,
  );

  console.log('\n== Packet path: SYN flood into a full hypervisor tracking table (the "It wasn\'t DNS" hot path) ==');
  printPacketPath(runPacketPathBench());

  console.log(
    '\n== "It wasn\'t DNS" at the talk\'s scale (public/scenarios/its-not-dns.yaml through the CLI path; targets: ≥ 20× as shipped, ≥ 10× with 5,000 clients, peak heap ≤ 300 MB) ==',
  );
  printReplay(runItsNotDnsBench());
  printReplay(runItsNotDnsBench(['params.alerting.replicas=5000'], envSeconds('BENCH_5000_UNTIL', 210)));
  const scalingUntil = envSeconds('BENCH_SCALING_UNTIL', 90);
  console.log(`\n== Scaling with the number of clients (its-not-dns to ${scalingUntil} s, the storm's peak included) ==`);
  printScaling([500, 2000, 5000, 20_000], scalingUntil);
  console.log();
}

function runLoaderSection(): void {
  console.log(`== Loader on hostile input (target: every answer under ${LOADER_BAR_MS / 1000} s for inputs up to 2 MB; best of 3 after a warm-up) ==`);
  printLoader(runLoaderBench());
}
