/**
 * Who calls whom, read from what a manifest configures: a container's environment and the ConfigMap entries it takes
 * name the Services it talks to (`cart:7070`, `http://cart.shop.svc.cluster.local:7070/api`), and the Service port's
 * name or appProtocol says which protocol (docs/sources/kubernetes.md#service-addresses).
 */

/** A Service of the manifests, as configuration can name it. */
export interface NamedService {
  /** Its name in the scenario. */
  name: string;
  /** Its name in the manifests, and its namespace. */
  original: string;
  namespace: string;
  ports: { port: number; name?: string; appProtocol?: string }[];
}

export interface ServiceReference {
  service: NamedService;
  /** The port the value names; undefined when it names none (the Service's first port is meant). */
  port: number | undefined;
  /** The value names a port the Service does not have: a connection there would find nothing. */
  unknownPort: boolean;
  protocol: 'grpc' | 'http';
}

// A URL's scheme, and its user info.
const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
const HOST_PORT = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?)(?::(\d{1,5}))?$/;

/**
 * Every Service a configuration value names, in order: the value is split at commas, semicolons and whitespace (lists
 * of addresses), and each part is a host or host:port, bare or in a URL. A host names a Service as `name` (in the
 * workload's namespace), `name.namespace`, or `name.namespace.svc` followed by the cluster domain.
 */
export function serviceReferences(value: string, namespace: string, services: readonly NamedService[]): ServiceReference[] {
  const found: ServiceReference[] = [];
  for (const part of value.split(/[\s,;]+/)) {
    if (part === '') continue;
    const scheme = SCHEME.exec(part);
    const authority = (scheme ? part.slice(scheme[0].length) : part).replace(/^[^@/]*@/, '').split(/[/?#]/)[0]!;
    const match = HOST_PORT.exec(authority.toLowerCase());
    if (!match) continue;
    const service = serviceNamed(match[1]!, namespace, services);
    if (!service) continue;
    const port = match[3] === undefined ? undefined : Number(match[3]);
    const declared = port === undefined ? service.ports[0] : service.ports.find((p) => p.port === port);
    const grpc = scheme?.[1]?.toLowerCase() === 'grpc' || (declared !== undefined && isGrpcPort(declared));
    found.push({ service, port, unknownPort: port !== undefined && declared === undefined, protocol: grpc ? 'grpc' : 'http' });
  }
  return found;
}

/** The Service a host name resolves to through a pod's DNS search list, if any. */
function serviceNamed(host: string, namespace: string, services: readonly NamedService[]): NamedService | undefined {
  const labels = host.split('.');
  const [name, ns = namespace, svc] = labels;
  // name, name.namespace, or name.namespace.svc[.<cluster domain>]
  if (labels.length > 2 && svc !== 'svc') return undefined;
  return services.find((s) => s.original === name && s.namespace === ns);
}

/** appProtocol `grpc` or `kubernetes.io/grpc`, or a port named `grpc` or `grpc-…` (the `<protocol>[-<suffix>]` convention). */
function isGrpcPort(port: { name?: string; appProtocol?: string }): boolean {
  if (port.appProtocol !== undefined) return ['grpc', 'kubernetes.io/grpc'].includes(port.appProtocol.toLowerCase());
  const name = port.name?.toLowerCase();
  return name === 'grpc' || name?.startsWith('grpc-') === true;
}
