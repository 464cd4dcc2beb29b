import { z } from 'zod';

// Kubernetes IsDNS1123Label: lower-case alphanumerics and '-', alphanumeric at both ends, at most 63 characters.
const DNS1123_LABEL = /^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// Kubernetes IsDNS1035Label (required for Service names): like a DNS-1123 label but starting with a letter.
const DNS1035_LABEL = /^(?=.{1,63}$)[a-z]([-a-z0-9]*[a-z0-9])?$/;

export const dnsLabel = z.string().regex(DNS1123_LABEL, {
  error: 'must be a DNS-1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit, at most 63 characters',
});

const serviceName = z.string().regex(DNS1035_LABEL, {
  error: 'must be a DNS-1035 label: lower-case letters, digits and "-", starting with a letter, at most 63 characters',
});

export const ipv4 = z.ipv4({ error: 'not an IPv4 address' });
const cidrv4 = z.cidrv4({ error: 'not an IPv4 CIDR block (like 10.244.1.0/24)' });
const port = z.number().int().min(1).max(65535);

const pod = z.strictObject({
  name: dnsLabel,
  deployment: z.string(),
  ip: ipv4.optional(),
});

const node = z.strictObject({
  name: dnsLabel,
  ip: ipv4,
  podCidr: cidrv4,
  // A cloud instance sits behind a hypervisor with allowances; a bare-metal host does not.
  platform: z.enum(['bare-metal', 'cloud']).default('bare-metal'),
  // Instance size in units of the per-size allowances (params.instance); twice as large doubles them.
  size: z.number().gt(0).max(64).default(1),
  pods: z.array(pod).default([]),
});

export const APPS = ['http-server', 'http-client'] as const;

const deployment = z.strictObject({
  app: z.enum(APPS),
  replicas: z.number().int().min(0).max(500),
  // Model choice: the port the server listens on inside the pod.
  port: port.default(8080),
  target: z.string().optional(),
});

const service = z.strictObject({
  selector: z.string(),
  clusterIp: ipv4,
  port: port.default(80),
  type: z.enum(['ClusterIP', 'NodePort', 'LoadBalancer']).default('ClusterIP'),
  // kube-apiserver --service-node-port-range default 30000-32767; unset ports are allocated.
  nodePort: z.number().int().min(30000).max(32767).optional(),
  loadBalancerIp: ipv4.optional(),
  // Kubernetes defaults externalTrafficPolicy to Cluster (REFERENCE G.3).
  externalTrafficPolicy: z.enum(['Cluster', 'Local']).default('Cluster'),
});

export const topologySchema = z.strictObject({
  nodes: z.array(node).min(1),
  deployments: z.record(dnsLabel, deployment),
  services: z.record(serviceName, service).default({}),
});
