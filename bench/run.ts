import { runDemoBench } from './demo';
import { runHoldBench } from './hold';
import { printPacketPath, runPacketPathBench } from './packet-path';
import { runItsNotDnsBench } from './its-not-dns';

// `npm run bench`: figures only, never pass/fail on timings.
console.log('Netmortem benchmarks\n');
console.log('== Event queue: Scheduler vs flatqueue (hold model) ==');
runHoldBench();

console.log('\n== CLI path on the demo scenario (load, create, run to the end; best of 5 after a warm-up) ==');
const demo = runDemoBench();
console.log(
  `${demo.scenario}: ${demo.simulatedSeconds} simulated s, ${demo.events.toLocaleString('en-US')} events in ${demo.wallMs.toFixed(1)} ms → ` +
    `${Math.round(demo.simSecondsPerWallSecond).toLocaleString('en-US')} simulated s per wall s, ` +
    `${Math.round(demo.eventsPerSecond).toLocaleString('en-US')} events/s`,
);

console.log('\n== Packet path: SYN flood into a full hypervisor tracking table (the "It wasn\'t DNS" hot path) ==');
printPacketPath(runPacketPathBench());

console.log('\n== "It wasn\'t DNS" at the talk\'s scale (2,000 gRPC clients, 50 instances; replay in progress) ==');
for (const w of runItsNotDnsBench([
  ['start-up and steady state', 0, 50],
  ['rollout and reconnect storm', 60, 90],
])) {
  console.log(
    `${w.label.padEnd(28)} ${w.from}-${w.to} s: ${w.events.toLocaleString('en-US')} events in ${(w.wallMs / 1000).toFixed(1)} s → ` +
      `${w.simSecondsPerWallSecond.toFixed(1)} simulated s per wall s`,
  );
}
