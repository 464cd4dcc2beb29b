import { describe, expect, it } from 'vitest';
import { cidr, formatCidr, ipv4 } from '../../src/sim/net/ipv4';
import { DESTINATION_RULE_PRIORITY, PolicyRouting, SOURCE_RULE_PRIORITY, TABLE_DEFAULT, TABLE_LOCAL, TABLE_MAIN } from '../../src/sim/net/policy-routing';
import { RouteTable } from '../../src/sim/net/route-table';

const ENI_TABLE = 11;
const NODE = ipv4('10.0.0.11');
const POD = ipv4('10.244.1.5');
const OTHER_POD = ipv4('10.244.1.6');
const REMOTE_POD = ipv4('10.244.2.7');
const INTERNET = ipv4('8.8.8.8');

/** A node in Cilium ENI style: local address, main table with pod /32 routes and a default via eth0, an ENI table via eth1. */
function eniNode(): PolicyRouting {
  const r = new PolicyRouting();
  r.local.add({ dst: cidr('10.0.0.11/32'), type: 'local', dev: 'lo' });
  r.main.add({ dst: cidr('0.0.0.0/0'), type: 'unicast', dev: 'eth0' });
  r.main.add({ dst: cidr('10.244.1.5/32'), type: 'unicast', dev: 'veth1' });
  r.main.add({ dst: cidr('10.244.1.6/32'), type: 'unicast', dev: 'veth2' });
  r.table(ENI_TABLE).add({ dst: cidr('0.0.0.0/0'), type: 'unicast', dev: 'eth1' });
  for (const pod of [POD, OTHER_POD]) {
    r.addDestinationRule(pod, TABLE_MAIN);
    r.addSourceRule(pod, ENI_TABLE);
  }
  return r;
}

describe('ip rules', () => {
  it('lists the rules in priority order: local 0, per-pod to 20, per-pod from 110, main 32766, default 32767', () => {
    expect(DESTINATION_RULE_PRIORITY).toBe(20);
    expect(SOURCE_RULE_PRIORITY).toBe(110);
    const rules = eniNode().listRules();
    expect(rules.map((r) => r.priority)).toEqual([0, 20, 20, 110, 110, 32766, 32767]);
    expect(rules.map((r) => r.table)).toEqual([TABLE_LOCAL, TABLE_MAIN, TABLE_MAIN, ENI_TABLE, ENI_TABLE, TABLE_MAIN, TABLE_DEFAULT]);
    expect(rules.filter((r) => r.priority === 20).map((r) => formatCidr(r.to!))).toEqual(['10.244.1.5/32', '10.244.1.6/32']);
    expect(rules.filter((r) => r.priority === 110).map((r) => formatCidr(r.from!))).toEqual(['10.244.1.5/32', '10.244.1.6/32']);
    for (const rule of rules.filter((r) => r.priority === 20)) expect(rule.from).toBeUndefined();
    for (const rule of rules.filter((r) => r.priority === 110)) expect(rule.to).toBeUndefined();
  });

  it('a node without per-pod rules lists only the kernel defaults', () => {
    expect(new PolicyRouting().listRules()).toEqual([
      { priority: 0, table: TABLE_LOCAL },
      { priority: 32766, table: TABLE_MAIN },
      { priority: 32767, table: TABLE_DEFAULT },
    ]);
  });

  it('the local table answers first, even when main has a route to the same address', () => {
    const r = eniNode();
    r.main.add({ dst: cidr('10.0.0.11/32'), type: 'unicast', dev: 'eth9' });
    expect(r.lookup(NODE, POD)).toMatchObject({ type: 'local', dev: 'lo' });
  });

  it("the to-rule at 20 beats the sender's from-rule at 110: pod-to-pod traffic on a node stays on the veth", () => {
    const r = eniNode();
    expect(r.lookup(POD, OTHER_POD)?.dev).toBe('veth1');
    expect(r.lookup(OTHER_POD, POD)?.dev).toBe('veth2');
  });

  it("the from-rule at 110 beats main: a pod's egress leaves by the ENI, the node's own by eth0", () => {
    const r = eniNode();
    expect(r.lookup(INTERNET, POD)?.dev).toBe('eth1');
    expect(r.lookup(REMOTE_POD, POD)?.dev).toBe('eth1');
    expect(r.lookup(INTERNET, NODE)?.dev).toBe('eth0');
    expect(r.lookup(REMOTE_POD, NODE)?.dev).toBe('eth0');
  });

  it('main at 32766 beats default at 32767, and default answers what main does not know', () => {
    const r = new PolicyRouting();
    r.table(TABLE_DEFAULT).add({ dst: cidr('0.0.0.0/0'), type: 'unicast', dev: 'eth7' });
    expect(r.lookup(INTERNET, NODE)?.dev).toBe('eth7');
    r.main.add({ dst: cidr('8.0.0.0/8'), type: 'unicast', dev: 'eth0' });
    expect(r.lookup(INTERNET, NODE)?.dev).toBe('eth0');
    expect(r.lookup(ipv4('9.9.9.9'), NODE)?.dev).toBe('eth7');
  });

  it('a table without a matching route falls through to the next rule', () => {
    const r = new PolicyRouting();
    r.main.add({ dst: cidr('0.0.0.0/0'), type: 'unicast', dev: 'eth0' });
    r.table(12).add({ dst: cidr('192.168.0.0/16'), type: 'unicast', dev: 'eth1' });
    r.addSourceRule(POD, 12);
    expect(r.lookup(ipv4('192.168.3.4'), POD)?.dev).toBe('eth1');
    expect(r.lookup(INTERNET, POD)?.dev).toBe('eth0');
    // A rule pointing at a table that does not exist at all falls through too.
    r.addDestinationRule(INTERNET, 99);
    expect(r.lookup(INTERNET, POD)?.dev).toBe('eth0');
  });

  it('with no table holding a route the lookup finds nothing', () => {
    const r = new PolicyRouting();
    r.addSourceRule(POD, ENI_TABLE);
    expect(r.lookup(INTERNET, POD)).toBeUndefined();
  });

  it('a blackhole route answers (it does not fall through)', () => {
    const r = new PolicyRouting();
    r.main.add({ dst: cidr('0.0.0.0/0'), type: 'unicast', dev: 'eth0' });
    r.table(12).add({ dst: cidr('10.244.0.0/16'), type: 'blackhole' });
    r.addSourceRule(POD, 12);
    expect(r.lookup(REMOTE_POD, POD)?.type).toBe('blackhole');
    expect(r.lookup(REMOTE_POD, NODE)?.dev).toBe('eth0');
  });

  it("removing a pod's source rule sends its traffic by main again; removing it twice reports nothing removed", () => {
    const r = eniNode();
    expect(r.hasSourceRule(POD)).toBe(true);
    expect(r.removeSourceRule(POD)).toBe(true);
    expect(r.hasSourceRule(POD)).toBe(false);
    expect(r.removeSourceRule(POD)).toBe(false);
    expect(r.lookup(INTERNET, POD)?.dev).toBe('eth0');
    expect(r.lookup(INTERNET, OTHER_POD)?.dev).toBe('eth1');
    expect(
      r
        .listRules()
        .filter((rule) => rule.priority === SOURCE_RULE_PRIORITY)
        .map((rule) => formatCidr(rule.from!)),
    ).toEqual(['10.244.1.6/32']);
  });

  it("removing a pod's destination rule and its /32 sends traffic for it by the default route", () => {
    const r = eniNode();
    expect(r.removeDestinationRule(POD)).toBe(true);
    expect(r.removeDestinationRule(POD)).toBe(false);
    // The /32 in main still answers through the main rule.
    expect(r.lookup(POD, REMOTE_POD)?.dev).toBe('veth1');
    r.main.removeHost(POD);
    expect(r.lookup(POD, REMOTE_POD)?.dev).toBe('eth0');
    expect(r.listRules().filter((rule) => rule.priority === DESTINATION_RULE_PRIORITY)).toHaveLength(1);
  });

  it('addRule places a rule by priority, after existing rules of equal priority', () => {
    const r = new PolicyRouting();
    r.addRule({ priority: 100, to: cidr('192.168.0.0/16'), table: 30 });
    r.addRule({ priority: 100, from: cidr('10.244.0.0/16'), table: 31 });
    r.addRule({ priority: 5, table: 32 });
    expect(r.listRules().map((rule) => [rule.priority, rule.table])).toEqual([
      [0, TABLE_LOCAL],
      [5, 32],
      [100, 30],
      [100, 31],
      [32766, TABLE_MAIN],
      [32767, TABLE_DEFAULT],
    ]);
  });

  it('rules with from/to selectors match only their addresses', () => {
    const r = new PolicyRouting();
    r.main.add({ dst: cidr('0.0.0.0/0'), type: 'unicast', dev: 'eth0' });
    r.table(30).add({ dst: cidr('0.0.0.0/0'), type: 'unicast', dev: 'tun0' });
    r.table(31).add({ dst: cidr('0.0.0.0/0'), type: 'unicast', dev: 'eth5' });
    r.addRule({ priority: 100, to: cidr('192.168.0.0/16'), table: 30 });
    r.addRule({ priority: 200, from: cidr('10.244.0.0/16'), table: 31 });
    expect(r.lookup(ipv4('192.168.1.1'), POD)?.dev).toBe('tun0');
    expect(r.lookup(INTERNET, POD)?.dev).toBe('eth5');
    expect(r.lookup(INTERNET, NODE)?.dev).toBe('eth0');
  });
});

describe('route table', () => {
  it('a /32 host route beats every prefix route', () => {
    const t = new RouteTable();
    t.add({ dst: cidr('10.244.1.0/24'), type: 'blackhole' });
    t.add({ dst: cidr('10.244.1.0/25'), type: 'unicast', dev: 'eth1' });
    t.add({ dst: cidr('10.244.1.5/32'), type: 'unicast', dev: 'veth3' });
    expect(t.lookup(POD)?.dev).toBe('veth3');
    expect(t.lookup(OTHER_POD)?.dev).toBe('eth1');
  });

  it('the longest prefix wins, whatever the order routes were added in', () => {
    const t = new RouteTable();
    t.add({ dst: cidr('0.0.0.0/0'), type: 'unicast', dev: 'eth0' });
    t.add({ dst: cidr('10.244.0.0/16'), type: 'unicast', dev: 'eth1' });
    t.add({ dst: cidr('10.0.0.0/8'), type: 'unicast', dev: 'eth2' });
    t.add({ dst: cidr('10.244.2.0/24'), type: 'blackhole' });
    expect(t.lookup(REMOTE_POD)?.type).toBe('blackhole');
    expect(t.lookup(POD)?.dev).toBe('eth1');
    expect(t.lookup(NODE)?.dev).toBe('eth2');
    expect(t.lookup(INTERNET)?.dev).toBe('eth0');
    expect(t.list().map((r) => r.dst.prefix)).toEqual([24, 16, 8, 0]);
  });

  it('of two equal prefixes the first added answers, as does the first /32', () => {
    const t = new RouteTable();
    t.add({ dst: cidr('10.0.0.0/8'), type: 'unicast', dev: 'first' });
    t.add({ dst: cidr('10.0.0.0/8'), type: 'unicast', dev: 'second' });
    t.add({ dst: cidr('10.244.1.5/32'), type: 'unicast', dev: 'veth-a' });
    t.add({ dst: cidr('10.244.1.5/32'), type: 'unicast', dev: 'veth-b' });
    expect(t.lookup(NODE)?.dev).toBe('first');
    expect(t.lookup(POD)?.dev).toBe('veth-a');
  });

  it('removeHost takes out one /32 only, and the covering prefix answers again', () => {
    const t = new RouteTable();
    t.add({ dst: cidr('10.244.1.0/24'), type: 'blackhole' });
    t.add({ dst: cidr('10.244.1.5/32'), type: 'unicast', dev: 'veth3' });
    t.add({ dst: cidr('10.244.1.6/32'), type: 'unicast', dev: 'veth4' });
    expect(t.removeHost(POD)).toBe(true);
    expect(t.removeHost(POD)).toBe(false);
    expect(t.lookup(POD)?.type).toBe('blackhole');
    expect(t.lookup(OTHER_POD)?.dev).toBe('veth4');
    expect(t.removeHost(ipv4('10.244.1.0'))).toBe(false);
    expect(t.lookup(ipv4('10.244.1.9'))?.type).toBe('blackhole');
  });

  it('remove(predicate) takes out host and prefix routes alike and says how many', () => {
    const t = new RouteTable();
    t.add({ dst: cidr('0.0.0.0/0'), type: 'unicast', dev: 'eth1' });
    t.add({ dst: cidr('10.244.0.0/16'), type: 'unicast', dev: 'eth1' });
    t.add({ dst: cidr('10.244.1.5/32'), type: 'unicast', dev: 'eth1' });
    t.add({ dst: cidr('10.0.0.0/8'), type: 'unicast', dev: 'eth0' });
    expect(t.remove((r) => r.dev === 'eth1')).toBe(3);
    expect(t.lookup(POD)?.dev).toBe('eth0');
    expect(t.lookup(INTERNET)).toBeUndefined();
  });
});

describe('the lookup cache', () => {
  it('forgets its answers when a rule or a route changes, so a lookup never returns a stale route', () => {
    const r = eniNode();
    expect(r.lookup(INTERNET, POD)?.dev).toBe('eth1');
    r.removeSourceRule(POD);
    expect(r.lookup(INTERNET, POD)?.dev).toBe('eth0');
    r.addSourceRule(POD, ENI_TABLE);
    expect(r.lookup(INTERNET, POD)?.dev).toBe('eth1');
    expect(r.lookup(REMOTE_POD, NODE)?.dev).toBe('eth0');
    r.main.add({ dst: cidr('10.244.2.7/32'), type: 'unicast', dev: 'veth9' });
    expect(r.lookup(REMOTE_POD, NODE)?.dev).toBe('veth9');
    r.main.removeHost(REMOTE_POD);
    expect(r.lookup(REMOTE_POD, NODE)?.dev).toBe('eth0');
    r.main.remove(() => true);
    expect(r.lookup(REMOTE_POD, NODE)).toBeUndefined();
    r.addRule({ priority: 5, to: cidr('10.244.2.0/24'), table: ENI_TABLE });
    expect(r.lookup(REMOTE_POD, NODE)?.dev).toBe('eth1');
  });

  it('answers the same as an uncached lookup for many pairs that share cache slots', () => {
    const r = eniNode();
    const fresh = (dst: number, src: number) => {
      const copy = eniNode();
      return copy.lookup(dst, src);
    };
    for (let i = 0; i < 10_000; i++) {
      const dst = (ipv4('10.244.0.0') + ((i * 7919) % 65536)) >>> 0;
      const src = i % 3 === 0 ? POD : i % 3 === 1 ? OTHER_POD : NODE;
      const got = r.lookup(dst, src);
      if (i % 500 === 0) expect(got).toEqual(fresh(dst, src));
      expect(r.lookup(dst, src)).toBe(got);
    }
  });
});
