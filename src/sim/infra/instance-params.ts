import { MAX_RUN_S } from '../scenario/formats';
import { z } from '../scenario/zod';

/** What the cloud's hypervisor allows each instance, per size unit, and how it tracks flows (`params.instance`). */
export const instanceParams = z.strictObject({
  // AWS does not publish tracked-connection maxima; a third-party benchmark saw ~77k on a large size
  // (docs/sources/cloud-hypervisor.md#tracked-connection-allowance). Per size unit.
  // Up to 10^8 tracked connections and 10^9 packets a second, at least one of each (docs/limits.md#counts, docs/limits.md#rates).
  conntrackAllowance: z.number().int().min(1).max(100_000_000).default(75_000),
  // Model choice: AWS does not publish PPS maxima either; a few hundred thousand packets per second per size unit.
  ppsAllowance: z.number().min(1).max(1_000_000_000).default(400_000),
  // Security-group rules that allow all traffic both ways leave flows untracked
  // (docs/sources/cloud-hypervisor.md#security-group-connection-tracking).
  untracked: z.boolean().default(false),
  // AWS ConnectionTrackingConfiguration default TcpEstablishedTimeout 432000 s
  // (docs/sources/cloud-hypervisor.md#security-group-connection-tracking).
  tcpEstablishedTimeoutS: z.number().min(60).max(432_000).default(432_000),
  // Model choice: AWS publishes no timeout for flows that never complete a handshake; Linux keeps SYN_SENT 120 s
  // (docs/sources/linux-conntrack.md#timeouts).
  tcpUnestablishedTimeoutS: z.number().min(1).max(432_000).default(120),
  // AWS default UdpTimeout 30 s (docs/sources/cloud-hypervisor.md#security-group-connection-tracking).
  udpTimeoutS: z.number().min(30).max(60).default(30),
  // AWS default UdpStreamTimeout 180 s (docs/sources/cloud-hypervisor.md#security-group-connection-tracking).
  udpStreamTimeoutS: z.number().min(60).max(180).default(180),
  // Model choice: the cloud detaches a deleted pod's secondary address from the instance's interface some seconds later.
  ipReleaseDelayS: z.number().min(0).max(MAX_RUN_S).default(30),
  // EC2 checks source/destination by default: an instance may only send from its own addresses.
  sourceDestCheck: z.boolean().default(true),
  // Model choice: the incident's m5.4xlarge at AWS's commonly listed us-east-1 on-demand rate, $0.768/h (m5.large $0.096 × 8).
  // Up to a million dollars an hour (docs/limits.md#counts).
  hourlyCost: z.number().min(0).max(1_000_000).default(0.768),
});
export type InstanceParams = z.output<typeof instanceParams>;
