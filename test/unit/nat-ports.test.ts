/** Source NAT keeps reply tuples unique (docs/sources/linux-conntrack.md#source-nat-ports). */
import { describe, expect, it } from 'vitest';
import { atSeconds } from '../../src/sim/core/time';
import { ConntrackTable, CtState } from '../../src/sim/net/conntrack';
import { uniqueSourcePort } from '../../src/sim/net/nat';

const TCP = 6;
const ALICE = 0xcb007107;
const LB = 0x0a0000fa;
const NODE = 0x0a00000b;
const POD = 0x0af40102;
const now = atSeconds(1);

describe('uniqueSourcePort', () => {
  it("keeps the flow's own port when no tracked flow has the translated reply tuple", () => {
    const t = new ConntrackTable(64);
    expect(uniqueSourcePort(t, TCP, POD, 80, NODE, 32768, now)).toBe(32768);
  });

  it('moves a second flow from the same port to another, so two clients masqueraded to one node do not share replies', () => {
    const t = new ConntrackTable(64);
    t.insertNat(TCP, ALICE, 32768, NODE, 30080, POD, 80, NODE, 32768, CtState.synSent, now);
    const port = uniqueSourcePort(t, TCP, POD, 80, NODE, 32768, now);
    expect(port).toBe(32769);
    t.insertNat(TCP, LB, 32768, NODE, 30080, POD, 80, NODE, port, CtState.synSent, now);
    // Each reply finds its own flow: the pod's answer to the probe is not taken for alice's.
    expect(t.lookupRef(TCP, POD, 80, NODE, 32768, now) >> 1).not.toBe(t.lookupRef(TCP, POD, 80, NODE, port, now) >> 1);
    expect(t.originalSource(t.lookupRef(TCP, POD, 80, NODE, port, now) >> 1)).toBe(LB);
  });

  it('stays in its class and wraps around the top of it', () => {
    const t = new ConntrackTable(64);
    t.insertNat(TCP, ALICE, 65535, NODE, 30080, POD, 80, NODE, 65535, CtState.synSent, now);
    expect(uniqueSourcePort(t, TCP, POD, 80, NODE, 65535, now)).toBe(1024);
    t.insertNat(TCP, ALICE, 1023, NODE, 30080, POD, 80, NODE, 1023, CtState.synSent, now);
    expect(uniqueSourcePort(t, TCP, POD, 80, NODE, 1023, now)).toBe(1);
  });
});
