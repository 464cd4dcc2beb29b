import { runDemoBench } from './demo';
import { runHoldBench } from './hold';
import { printPacketPath, runPacketPathBench } from './packet-path';
import { printReplay, runItsNotDnsBench } from './its-not-dns';
import { runUiBenches } from './ui';

// `npm run bench`: figures only, never pass/fail on timings. `npm run bench:ui` (argument `ui`) runs only the UI sections.
const only = process.argv[2];
if (only !== undefined && only !== 'ui') throw new Error(`unknown bench selection ${JSON.stringify(only)}; the only one is "ui"`);
console.log('Netmortem benchmarks\n');
if (only === undefined) runSimBenches();
// A bar the UI misses prints FAIL but is a figure too; only a run that could not happen (no browser) exits non-zero.
if (!(await runUiBenches())) process.exitCode = 1;

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

  console.log('\n== Service discovery at scale (public/scenarios/service-discovery.yaml; best of 2 after a warm-up) ==');
  const discovery = runDemoBench('service-discovery', 2);
  console.log(
    `${discovery.scenario}: ${discovery.simulatedSeconds} simulated s, ${discovery.events.toLocaleString('en-US')} events in ${discovery.wallMs.toFixed(1)} ms → ` +
      `${Math.round(discovery.simSecondsPerWallSecond).toLocaleString('en-US')} simulated s per wall s, ` +
      `${Math.round(discovery.eventsPerSecond).toLocaleString('en-US')} events/s (${(discovery.eventsPerSecond / demo.eventsPerSecond).toFixed(2)}× the demo's rate)`,
  );

  console.log('\n== Packet path: SYN flood into a full hypervisor tracking table (the "It wasn\'t DNS" hot path) ==');
  printPacketPath(runPacketPathBench());

  console.log('\n== "It wasn\'t DNS" at the talk\'s scale (public/scenarios/its-not-dns.yaml through the CLI path; target ≥ 20×, and ≥ 5× with 5,000 clients) ==');
  printReplay(runItsNotDnsBench());
  // Five thousand clients cost minutes per simulated minute in the storm, so this variant stops after the storm's peak.
  printReplay(runItsNotDnsBench(['params.alerting.replicas=5000'], Number(process.env['BENCH_5000_UNTIL'] ?? 90)));
  console.log();
}
