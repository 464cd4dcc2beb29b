/**
 * The kubelet's readiness and liveness probes (src/sim/k8s/kubelet-probes.ts): connections from the node to the pod's
 * address every period, with Kubernetes' defaults, thresholds counted in a row, readiness gating the endpoint and
 * liveness restarting the container (docs/sources/kubernetes.md#container-probes).
 */
import { describe, expect, it } from 'vitest';
import type { Sim } from '../../src/sim/api';
import { atSeconds } from '../../src/sim/core/time';
import { loadScenario } from '../../src/sim/scenario/load';
import { createSim, FAULT_IDS } from '../../src/sim/sim';
import { loadText, runText } from '../fixtures/scenario-run';

/** One web pod behind a Service and a client; at 5 s web scales to 2, so web-1 is created at 5 s and starts at 7 s. */
const scenario = (web: string, duration = 40, params = '{}'): string => `
version: 1
id: probes
title: Probes
description: A web pod and the kubelet's probes of it.
seed: 1
duration: ${duration}
topology:
  nodes:
    - { name: node-a, ip: 10.0.0.11, podCidr: 10.244.1.0/24 }
  deployments:
    web: { app: http-server, replicas: 1, ${web} }
    client: { app: http-client, replicas: 1, target: web }
  services:
    web: { selector: web, clusterIp: 10.96.0.10 }
params: ${params}
timeline:
  - { at: 5, fault: scale-deployment, target: deployment/web, params: { replicas: 2 } }
`;

const web1 = (sim: Sim, at: number) => {
  sim.runUntil(atSeconds(at));
  return sim.topology().pods.find((p) => p.name === 'web-1')!;
};
const eventTimes = (sim: Sim, kind: string, entity = 'pod/web-1') =>
  sim
    .eventsSince(0)
    .filter((e) => e.kind === kind && e.entity === entity)
    // To the hundredth of a second: a probe's verdict comes a round trip after it is sent.
    .map((e) => Math.round(e.t / 1e4) / 100);

describe('kubelet probes', () => {
  it("fills in Kubernetes' defaults: every 10 s, a 1 s timeout, 3 failures, 1 success, no initial delay", () => {
    const loaded = loadText(scenario('readinessProbe: { httpGet: {} }, livenessProbe: { tcpSocket: { port: 8080 } }'));
    const web = loaded.topology.deployments['web']!;
    const defaults = { initialDelaySeconds: 0, periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 3, successThreshold: 1 };
    expect(web.readinessProbe).toEqual({ httpGet: {}, ...defaults });
    expect(web.livenessProbe).toEqual({ tcpSocket: { port: 8080 }, ...defaults });
  });

  it('refuses a probe with no action or two, and a liveness probe that asks for more than one success, naming the field', () => {
    const errors = (web: string) => {
      const loaded = loadScenario(scenario(web), 'probes.yaml', { faultIds: FAULT_IDS });
      return loaded.ok ? [] : loaded.errors;
    };
    expect(errors('readinessProbe: { periodSeconds: 5 }').join('\n')).toMatch(/topology\.deployments\.web\.readinessProbe.*needs exactly one of tcpSocket or httpGet/);
    expect(errors('readinessProbe: { tcpSocket: {}, httpGet: {} }').join('\n')).toMatch(/readinessProbe.*needs exactly one of tcpSocket or httpGet/);
    expect(errors('livenessProbe: { httpGet: {}, successThreshold: 2 }').join('\n')).toMatch(/livenessProbe\.successThreshold: expected 1, got 2/);
    expect(errors('readinessProbe: { httpGet: {}, periodSeconds: 0 }').join('\n')).toMatch(/readinessProbe\.periodSeconds/);
  });

  it('a new pod with a readiness probe joins the endpoints only after successThreshold passes in a row', () => {
    const { sim } = runText(scenario('readinessProbe: { tcpSocket: {}, initialDelaySeconds: 3, periodSeconds: 4, successThreshold: 2 }', 20));
    const fresh = (at: number) => web1(createSim(loadText(scenario('readinessProbe: { tcpSocket: {}, initialDelaySeconds: 3, periodSeconds: 4, successThreshold: 2 }', 20))), at);
    // Started at 7 s, probed at 10 s and 14 s: Ready at the second pass.
    expect(fresh(13.9)).toMatchObject({ phase: 'running', ready: false });
    expect(eventTimes(sim, 'pod.ready')).toEqual([14]);
    expect(eventTimes(sim, 'pod.started')).toEqual([7]);
  });

  it('a liveness probe on a port nothing listens on kills the container after failureThreshold failures, then again after the back-off', () => {
    const kills = (failureThreshold: number) =>
      eventTimes(runText(scenario(`livenessProbe: { tcpSocket: { port: 9999 }, periodSeconds: 5, failureThreshold: ${failureThreshold} }`, 60)).sim, 'pod.crashed');
    // Started at 7 s, refused at 7, 12, …: killed (threshold − 1) periods after the first probe; restarted 10 s, then
    // 20 s later.
    expect(kills(2)).toEqual([12, 27, 52]);
    expect(kills(3)).toEqual([17, 37]);
    const { sim } = runText(scenario('livenessProbe: { tcpSocket: { port: 9999 }, periodSeconds: 5, failureThreshold: 2 }', 60));
    const failed = sim.eventsSince(0).find((e) => e.kind === 'probe.failed' && e.entity === 'pod/web-1')!;
    expect(failed.message).toBe('Liveness probe failed: dial tcp 10.244.1.4:9999: connect: connection refused');
    // With no readiness probe the pod is Ready while it runs and not while it waits out its back-off.
    const live = createSim(loadText(scenario('livenessProbe: { tcpSocket: { port: 9999 }, periodSeconds: 5, failureThreshold: 2 }', 60)));
    expect(web1(live, 11)).toMatchObject({ ready: true });
    expect(web1(live, 13)).toMatchObject({ ready: false });
    expect(web1(live, 23)).toMatchObject({ ready: true });
  });

  it('an HTTP probe the server answers later than timeoutSeconds fails as a client timeout; a longer timeout passes it', () => {
    const failures = (timeoutSeconds: number) =>
      runText(scenario(`readinessProbe: { httpGet: {}, timeoutSeconds: ${timeoutSeconds} }`, 40, '{ server: { serviceTimeMs: 5000 } }'))
        .sim.eventsSince(0)
        .filter((e) => e.kind === 'probe.failed')
        .map((e) => e.message);
    const slow = failures(1);
    expect(slow.length).toBeGreaterThan(2);
    expect(slow).toContain('Readiness probe failed: Get "http://10.244.1.4:8080/": context deadline exceeded (Client.Timeout exceeded while awaiting headers)');
    expect(failures(60)).toEqual([]);
  });

  it('a probe slower than the period delays the next one instead of being cut short', () => {
    const sent = (timeoutSeconds: number) =>
      runText(scenario(`readinessProbe: { httpGet: {}, timeoutSeconds: ${timeoutSeconds} }`, 40, '{ server: { serviceTimeMs: 30000 } }')).report.totals['kubelet.probes.sent']!;
    // Answers take 30 s on average: with a 1 s timeout every tick probes (4 + 4), with 60 s each probe waits for its answer.
    expect(sent(1)).toBe(8);
    expect(sent(60)).toBeLessThan(6);
  });

  it('probes every pod once a period: half the period, twice the probes', () => {
    const sent = (period: number) => runText(scenario(`readinessProbe: { httpGet: {}, periodSeconds: ${period} }`, 40)).report.totals['kubelet.probes.sent']!;
    // web-0 from the start (phase within the first period) and web-1 from 7 s.
    expect(sent(10)).toBe(4 + 4);
    expect(sent(5)).toBe(8 + 7);
  });

  it('a scenario that declares no probe sends none and has no probe metrics', () => {
    const { report } = runText(scenario('port: 8080'));
    expect(Object.keys(report.totals).filter((k) => k.startsWith('kubelet.'))).toEqual([]);
  });
});

describe('the probe each app kind answers (docs/sources/kubernetes.md#container-probes)', () => {
  /** A deployment `probed` of one pod, scaled to two at 5 s; its second pod starts at 7 s and is probed at once. */
  const kinds = (probed: string) => `
version: 1
id: probe-kinds
title: Probe kinds
description: Each app kind behind the kubelet's probe.
seed: 1
duration: 20
topology:
  nodes:
    - { name: node-a, ip: 10.0.0.11, podCidr: 10.244.1.0/24 }
  deployments:
    web: { app: http-server, replicas: 1 }
    ${probed}
  services:
    web: { selector: web, clusterIp: 10.96.0.10 }
timeline:
  - { at: 5, fault: scale-deployment, target: deployment/probed, params: { replicas: 2 } }
`;
  const readyAt = (probed: string) => {
    const sim = createSim(loadText(kinds(probed)));
    sim.runUntil(atSeconds(20));
    return { ready: eventTimes(sim, 'pod.ready', 'pod/probed-1'), failed: eventTimes(sim, 'probe.failed', 'pod/probed-1').length };
  };

  it('an HTTP server answers an httpGet, an ingress proxy and a gRPC server a tcpSocket on their port: Ready at the first probe', () => {
    expect(readyAt('probed: { app: http-server, replicas: 1, readinessProbe: { httpGet: {} } }')).toEqual({ ready: [7], failed: 0 });
    expect(readyAt('probed: { app: ingress-proxy, replicas: 1, target: web, readinessProbe: { tcpSocket: {} } }')).toEqual({ ready: [7], failed: 0 });
    expect(readyAt('probed: { app: grpc-server, replicas: 1, port: 9090, readinessProbe: { tcpSocket: {} } }')).toEqual({ ready: [7], failed: 0 });
  });

  it('a client listens on nothing: a probe declared on it is refused every time and it never turns Ready', () => {
    expect(readyAt('probed: { app: http-client, replicas: 1, target: web, readinessProbe: { tcpSocket: {} } }')).toEqual({ ready: [], failed: 2 });
  });
});
