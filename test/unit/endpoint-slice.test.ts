import { describe, expect, it } from 'vitest';
import { EndpointSlice, endpointOf, type PodLike } from '../../src/sim/k8s/endpoint-slice';

const pod = (index: number, over: Partial<PodLike> = {}): PodLike => ({
  index,
  ip: 0x0af40000 + index,
  hostIndex: index % 3,
  phase: 'running',
  ready: true,
  ...over,
});

describe('EndpointSlice conditions (docs/sources/kubernetes.md#endpointslice-conditions)', () => {
  it('a running ready pod is ready and serving; a running unready one is listed but neither', () => {
    expect(endpointOf(pod(1), 8080)).toEqual({ ip: 0x0af40001, port: 8080, pod: 1, node: 1, ready: true, serving: true, terminating: false });
    expect(endpointOf(pod(2, { ready: false }), 8080)).toMatchObject({ ready: false, serving: false, terminating: false });
  });

  it('at SIGTERM the endpoint stays: ready=false, serving = actual readiness, terminating=true', () => {
    expect(endpointOf(pod(1, { phase: 'terminating', ready: true }), 80)).toMatchObject({ ready: false, serving: true, terminating: true });
    expect(endpointOf(pod(1, { phase: 'terminating', ready: false }), 80)).toMatchObject({ ready: false, serving: false, terminating: true });
  });

  it('a starting pod is listed not ready; a gone pod is left out', () => {
    expect(endpointOf(pod(1, { phase: 'pending', ready: false }), 80)).toMatchObject({ ready: false, serving: false, terminating: false });
    expect(endpointOf(pod(1, { phase: 'gone' }), 80)).toBeNull();
  });
});

describe('EndpointSlice versions', () => {
  it('bumps the version only when something kube-proxy reads changed, and replaces rather than mutates the list', () => {
    const slice = new EndpointSlice();
    const pods = [pod(0), pod(1), pod(2)];
    expect(slice.update(pods, 8080)).toBe(true);
    expect(slice.version).toBe(1);
    expect(slice.readyCount).toBe(3);
    const snapshot = slice.endpoints;

    expect(
      slice.update(
        pods.map((p) => ({ ...p })),
        8080,
      ),
    ).toBe(false);
    expect(slice.version).toBe(1);

    pods[1]!.ready = false;
    expect(slice.update(pods, 8080)).toBe(true);
    expect(slice.version).toBe(2);
    expect(slice.readyCount).toBe(2);
    expect(snapshot[1]!.ready).toBe(true);
    expect(slice.endpoints[1]!.ready).toBe(false);

    pods[2]!.phase = 'gone';
    expect(slice.update(pods, 8080)).toBe(true);
    expect(slice.endpoints.map((e) => e.pod)).toEqual([0, 1]);
    expect(slice.update(pods, 9090)).toBe(true);
    expect(slice.version).toBe(4);
  });
});
