import { defineFault } from './fault';
import { dnsServerNamed, IMPAIRMENT_DURATION } from './targets';

export const slowUpstream = defineFault({
  id: 'slow-upstream',
  label: 'Slow DNS upstream',
  icon: '⇣',
  description:
    'Makes a DNS server answer late for a while: CoreDNS (dns/cluster) or the cloud resolver (dns/provider). Forwarders hold more queries in flight, and those with a concurrency limit start refusing.',
  targets: ['dns'],
  params: [IMPAIRMENT_DURATION, { name: 'addedLatencyMs', label: 'Added latency', kind: 'number', default: 1000, min: 0, max: 60_000, unit: 'ms' }],
  apply(world, _kind, name, params, cause) {
    dnsServerNamed(world, name).impair(params.durationSeconds, 0, params.addedLatencyMs, cause);
  },
});
