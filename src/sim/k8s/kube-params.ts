import { MAX_RUN_MS, MAX_RUN_S } from '../scenario/formats';
import { z } from '../scenario/zod';

/** How fast the control plane and the kubelet act on pods (`params.kube`). */
export const kubeParams = z.strictObject({
  // Model choice: image already on the node, so creation to Ready takes a couple of seconds.
  podStartSeconds: z.number().min(0).max(MAX_RUN_S).default(2),
  // Model choice: 0, every pod takes exactly its start time; a fraction spreads each start uniformly over start × (1 ±
  // jitter), as image pulls and readiness probes differ from pod to pod.
  podStartJitter: z.number().min(0).max(1).default(0),
  // Model choice: an EndpointSlice change reaches every node's kube-proxy through its watch within a fraction of a second.
  endpointPropagationMs: z.number().min(0).max(MAX_RUN_MS).default(100),
  // Model choice: the ReplicaSet controller reacts to a deleted pod through its informer within a fraction of a second.
  replaceDelayMs: z.number().min(0).max(MAX_RUN_MS).default(200),
  // Model choice: kubelet stops the pod sandbox (CNI DEL removes the veth and routes) shortly after the containers exit.
  netnsTeardownMs: z.number().min(0).max(MAX_RUN_MS).default(200),
});
export type KubeParams = z.output<typeof kubeParams>;
