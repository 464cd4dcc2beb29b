import { defineFault } from './fault';
import { dnsServerNamed, IMPAIRMENT_DURATION } from './targets';

export const breakUpstream = defineFault({
  id: 'break-upstream',
  label: 'Break DNS upstream',
  icon: '⚡',
  description:
    'Makes a DNS server lose queries for a while: CoreDNS (dns/cluster) or the cloud resolver (dns/provider). Askers hear nothing, time out, retry, and forwarders mark it unhealthy.',
  targets: ['dns'],
  params: [IMPAIRMENT_DURATION, { name: 'dropProbability', label: 'Share of queries lost', kind: 'number', default: 1, min: 0, max: 1 }],
  apply(world, _kind, name, params, cause) {
    dnsServerNamed(world, name).impair(params.durationSeconds, params.dropProbability, 0, cause);
  },
});
