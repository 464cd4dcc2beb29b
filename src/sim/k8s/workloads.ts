import { formatCount } from '../core/format';
import type { EventHandle, HandlerId } from '../core/scheduler';
import type { RngStream } from '../core/rng';
import { millis, seconds, type Duration, type SimTime } from '../core/time';
import type { InspectSection } from '../api';
import type { SimContext } from '../context';
import type { KubeParams } from './kube-params';
import type { Host } from '../infra/host';
import { Pod, type PodApp } from '../infra/pod';
import { formatIpv4, type Ipv4 } from '../net/ipv4';
import { TcpStack, type Tcp } from '../net/tcp';
import { UdpStack, type Udp } from '../net/udp';
import type { Cni } from '../infra/cni';
import type { KubeProxy } from './kube-proxy';
import { planRollout, resolveFenceposts, type IntOrPercent } from './rollout';
import type { Service } from './service';
import { KubeletProbes, type ProbeKind, type ProbeSettings } from './kubelet-probes';
import { chooseNode, explainChoice, NO_RULES, unschedulableReasons, type NodeView, type PlacementRules } from './scheduling';
import { bound, withMember } from '../core/snapshot';

// How long the view keeps a gone pod, so connections still aimed at its address stay visible.
const GONE_SHOWN_FOR = seconds(10);

export interface DeploymentSpec {
  name: string;
  replicas: number;
  port: number;
  /** RollingUpdate strategy; Kubernetes defaults both to 25 % (Deployment API reference). */
  maxSurge?: IntOrPercent;
  maxUnavailable?: IntOrPercent;
  /** terminationGracePeriodSeconds; 30 by default (docs/sources/kubernetes.md#pod-termination). */
  gracePeriodSeconds?: number;
  /**
   * A preStop hook that sleeps this long before SIGTERM reaches the app (docs/sources/kubernetes.md#pod-termination).
   */
  preStopSeconds?: number;
  /** Creation to Ready for new pods; `kube.podStartSeconds` when unset. */
  readySeconds?: number;
  /** A nodeSelector by node name: pods are scheduled only on these nodes; any node when unset. */
  nodes?: readonly string[];
  /** A DaemonSet: one pod on every node of the cluster that `nodes` allows, cordoned or not; `replicas` follows. */
  perNode?: boolean;
  /** The kubelet's probes of the pod's container; none when unset, as in Kubernetes. */
  probes?: Partial<Record<ProbeKind, ProbeSettings>>;
  /** Pod anti-affinity and topology spread constraints against the deployment's own pods; none when unset. */
  placement?: PlacementRules;
}

// Kubernetes defaults: maxSurge 25 %, maxUnavailable 25 %, terminationGracePeriodSeconds 30
// (docs/sources/kubernetes.md#deployment-rollouts, #pod-termination).
const DEFAULT_SURGE: IntOrPercent = '25%';
const DEFAULT_UNAVAILABLE: IntOrPercent = '25%';
// A DaemonSet's RollingUpdate defaults: maxSurge 0, maxUnavailable 1 (DaemonSet API reference).
const DAEMONSET_SURGE: IntOrPercent = 0;
const DAEMONSET_UNAVAILABLE: IntOrPercent = 1;
export const DEFAULT_GRACE_SECONDS = 30;
// If preStop still runs when the grace period ends, the kubelet grants a one-off 2 s extension
// (docs/sources/kubernetes.md#pod-termination).
const PRESTOP_EXTENSION_SECONDS = 2;

// kubelet's container restart back-off: 10 s, doubled after each crash, capped at 300 s, reset after 10 min of running
// (Kubernetes docs, Pod lifecycle: "Container restarts").
const CRASH_BACKOFF_INITIAL_S = 10;
const CRASH_BACKOFF_MAX_S = 300;
const CRASH_BACKOFF_RESET_S = 600;

/** Builds the app that runs in a new pod of a deployment. */
export type AppFactory = (pod: Pod) => PodApp;

interface Deployment {
  index: number;
  spec: DeploymentSpec;
  pods: Pod[];
  nextOrdinal: number;
  makeApp: AppFactory;
  /** The pod template's revision; a rolling update bumps it. */
  revision: number;
  /** While set, every container of the deployment exits `runFor` after it starts, until `until`. */
  crash: { runFor: Duration; jitter: number; until: SimTime; cause: string } | null;
  /** Pods of it wait for a node; a pod leaving a node may make room (scheduling.ts). */
  waiting: boolean;
  /** The last note of why they wait, so a retry that fails the same way does not log it again. */
  waitNote: string | null;
}

/** A pod's main container under CrashLoopBackOff. */
interface Restarts {
  count: number;
  startedAt: SimTime;
  crashTimer: EventHandle;
}

/**
 * Deployments, their ReplicaSets and pod lifecycles, and the endpoints of the Services that select them.
 * A pod runs its app once started; deletion sends SIGTERM, takes it out of endpoints at once and SIGKILLs it
 * after the grace period; the ReplicaSet replaces it as soon as it is terminating.
 */
export class Workloads {
  private readonly deployments: Deployment[] = [];
  private readonly byName = new Map<string, Deployment>();
  private readonly services: Service[] = [];
  private readonly usedNames = new Set<string>();
  /** Each Service's index in kube-proxy. */
  private readonly proxyIndex: number[] = [];
  private readonly sliceWatchers: ((service: Service) => void)[] = [];
  /** When the pod that last held each address was deleted, for measuring how long clients keep using it. */
  private readonly deletedAt = new Map<number, SimTime>();
  /** Until the starting state is up, slice changes are not news to anyone: kube-proxy programs it all at once. */
  private running = false;
  private readonly startPod: HandlerId;
  private readonly killPod: HandlerId;
  private readonly createReplacement: HandlerId;
  private readonly notifyProxies: HandlerId;
  private readonly forgetPod: HandlerId;
  private readonly teardownNetns: HandlerId;
  private readonly sigterm: HandlerId;
  private readonly crashContainer: HandlerId;
  /** Each crash-looping deployment's draws of run times, made on first use. */
  private readonly crashStreams = new Map<number, RngStream>();
  private readonly restartContainer: HandlerId;
  private readonly restarts = new Map<number, Restarts>();
  /** Draws of pod start times, made on first use so runs without start jitter draw nothing. */
  private startRng: RngStream | null = null;
  /** The kubelets' probers, made for the first deployment that declares a probe. */
  private probes: KubeletProbes | null = null;

  constructor(
    private readonly ctx: SimContext,
    private readonly hosts: readonly Host[],
    private readonly tcp: Tcp,
    private readonly udp: Udp,
    private readonly cni: Cni,
    /** Every pod ever created, indexed by pod index; shared with the network, which delivers to them. */
    readonly pods: Pod[],
    private readonly kubeProxy: KubeProxy,
    private readonly settings: KubeParams,
  ) {
    const s = ctx.sched;
    this.startPod = s.register('pod.start', withMember(this, this.onStart, this.pods));
    this.killPod = s.register('pod.kill', withMember(this, this.onKill, this.pods));
    this.sigterm = s.register('pod.sigterm', withMember(this, this.onSigterm, this.pods));
    this.createReplacement = s.register('replicaset.create', withMember(this, this.reconcile, this.deployments));
    this.notifyProxies = s.register('endpoints.watch', bound(this, this.notifyEndpoints));
    this.teardownNetns = s.register('pod.netns-teardown', withMember(this, this.tearDownNetns, this.pods));
    this.crashContainer = s.register('pod.crash', withMember(this, this.onCrash, this.pods));
    this.restartContainer = s.register('pod.restart', withMember(this, this.onRestart, this.pods));
    this.forgetPod = s.register('pod.forget', withMember(this, this.forget, this.pods));
  }

  /** A Service's endpoints changed: kube-proxy and every slice watcher hear of it. */
  private notifyEndpoints(svc: number): void {
    this.kubeProxy.changed(this.proxyIndex[svc]!);
    for (const watcher of this.sliceWatchers) watcher(this.services[svc]!);
  }

  private tearDownNetns(pod: Pod): void {
    pod.tcp.destroy();
    this.cni.detach(pod);
    this.retryWaiting();
  }

  /** A deleted pod leaves the picture. */
  private forget(pod: Pod): void {
    pod.shown = false;
    this.ctx.touchTopology();
  }

  reserveNames(names: Iterable<string>): void {
    for (const name of names) this.usedNames.add(name);
  }

  addDeployment(spec: DeploymentSpec, makeApp: AppFactory): void {
    const d: Deployment = { index: this.deployments.length, spec, pods: [], nextOrdinal: 0, makeApp, revision: 1, crash: null, waiting: false, waitNote: null };
    this.deployments.push(d);
    this.byName.set(spec.name, d);
    if (spec.probes && (spec.probes.readiness || spec.probes.liveness)) {
      this.probes ??= new KubeletProbes(this.ctx, this);
    }
  }

  /** Registers a Service; returns its index in kube-proxy, which the health-check server asks about. */
  addService(service: Service): number {
    this.services.push(service);
    const index = this.kubeProxy.addService(service);
    this.proxyIndex.push(index);
    return index;
  }

  /** Calls `watcher` whenever a Service's EndpointSlice change reaches the watchers (after the watch latency). */
  watchSlices(watcher: (service: Service) => void): void {
    this.sliceWatchers.push(watcher);
  }

  deploymentPort(name: string): number {
    return this.deployment(name).spec.port;
  }

  /** Creates a pod now; it starts after `kube.podStartSeconds`. */
  createPod(deploymentName: string, host: Host, name?: string, ip?: Ipv4): Pod {
    const d = this.deployment(deploymentName);
    const podName = name ?? this.nextName(d);
    this.usedNames.add(podName);
    let address: Ipv4;
    if (ip === undefined) address = host.allocate(`k8s-pod-network.${podName}`);
    else {
      host.reserve(ip, `k8s-pod-network.${podName}`);
      address = ip;
    }
    const index = this.pods.length;
    const pod = new Pod(index, podName, d.spec.name, host, address, new TcpStack(this.tcp, address, index), new UdpStack(this.udp, address, index));
    pod.revision = d.revision;
    this.deletedAt.delete(address);
    this.pods.push(pod);
    d.pods.push(pod);
    this.cni.attach(pod);
    pod.app = d.makeApp(pod);
    this.ctx.sched.after(seconds(this.startTime(d)), this.startPod, index);
    this.ctx.note('info', pod.entity, 'pod.created', `created on ${host.name} with address ${formatIpv4(address)}`);
    this.ctx.touchTopology();
    this.endpointsChanged(pod.deployment);
    return pod;
  }

  /** Creation to Ready for a new pod of the deployment, in seconds, spread by `kube.podStartJitter`. */
  private startTime(d: Deployment): number {
    const base = d.spec.readySeconds ?? this.settings.podStartSeconds;
    const jitter = this.settings.podStartJitter;
    if (jitter === 0) return base;
    this.startRng ??= this.ctx.rng.stream('pod-start');
    return base * (1 + jitter * (2 * this.startRng.next() - 1));
  }

  /**
   * Brings the scenario's starting state up at time zero: every deployment filled to its replica count, every pod
   * running and ready, every Service's endpoints already programmed. Only pods created later go through start-up.
   */
  startSteadyState(): void {
    for (const d of this.deployments) this.reconcile(d, -1);
    for (const pod of this.pods) {
      pod.phase = 'running';
      pod.ready = true;
    }
    for (const service of this.services) service.slice.update(this.deployment(service.selector).pods, service.targetPort);
    this.kubeProxy.programAll();
    this.running = true;
    for (const pod of this.pods) {
      pod.app?.start();
      const probes = this.deployment(pod.deployment).spec.probes;
      if (probes) this.probes?.start(pod, probes, true);
    }
  }

  /**
   * Deletes a pod: it turns Terminating (its endpoint not ready at once), its preStop hook runs, then SIGTERM reaches
   * the app, and SIGKILL follows at the end of the grace period (plus 2 s if preStop is still running); its
   * ReplicaSet creates a replacement. `gracePeriodSeconds` defaults to the deployment's.
   */
  deletePod(pod: Pod, gracePeriodSeconds: number | undefined, cause: string): void {
    if (!pod.active) return;
    const d = this.deployment(pod.deployment);
    const grace = gracePeriodSeconds ?? d.spec.gracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
    const preStop = grace === 0 ? 0 : (d.spec.preStopSeconds ?? 0);
    // `ready` stays the container's actual readiness: the endpoint turns ready=false, serving=true, terminating=true.
    pod.phase = 'terminating';
    this.deletedAt.set(pod.ip, this.ctx.sched.now);
    const hook = preStop > 0 ? `preStop ${preStop} s, then ` : '';
    const how = grace === 0 ? 'with no grace period' : `${hook}SIGTERM with a ${grace} s grace period`;
    this.ctx.note('warn', pod.entity, 'pod.terminating', `deleted; ${how}`, { cause });
    this.ctx.touchTopology();
    this.endpointsChanged(pod.deployment);
    this.ctx.sched.after(millis(this.settings.replaceDelayMs), this.createReplacement, d.index, pod.index);
    pod.app?.preStop?.();
    if (grace === 0) {
      this.onKill(pod);
      return;
    }
    const killAt = preStop >= grace ? grace + PRESTOP_EXTENSION_SECONDS : grace;
    this.ctx.sched.after(seconds(killAt), this.killPod, pod.index);
    if (preStop > 0) this.ctx.sched.after(seconds(Math.min(preStop, killAt)), this.sigterm, pod.index);
    else this.onSigterm(pod);
  }

  /** A rolling update to a new pod template: new pods replace old ones within maxSurge and maxUnavailable. */
  rollout(deploymentName: string, cause: string): void {
    const d = this.deployment(deploymentName);
    d.revision++;
    const { surge, unavailable } = this.fenceposts(d);
    const message = `rolling update to revision ${d.revision}: maxSurge ${surge}, maxUnavailable ${unavailable}`;
    this.ctx.note('info', `deployment/${d.spec.name}`, 'deployment.rollout', message, { cause });
    this.ctx.causes.record('rollout', `deployment/${d.spec.name}`, this.ctx.sched.now, { revision: d.revision });
    this.reconcile(d, -1);
  }

  /**
   * `kubectl scale`: the ReplicaSet creates pods up to `replicas`, or deletes the surplus in the ReplicaSet
   * controller's order: the older template first, then pods not yet Ready, then pods sharing their node with more of
   * the deployment's pods, then the youngest (controller.ActivePodsWithRanks, without its logarithmic age buckets).
   */
  scale(deploymentName: string, replicas: number, cause: string): void {
    const d = this.deployment(deploymentName);
    if (d.spec.perNode) throw new Error(`target: ${d.spec.name} is a DaemonSet: it runs one pod per node and has no replica count to scale`);
    const before = d.spec.replicas;
    d.spec.replicas = replicas;
    this.ctx.note('info', `deployment/${d.spec.name}`, 'deployment.scaled', `scaled from ${before} to ${replicas} replicas`, { cause });
    const active = d.pods.filter((p) => p.active);
    const surplus = active.length - replicas;
    if (surplus > 0) {
      const onNode = new Map<Host, number>();
      for (const p of active) onNode.set(p.host, (onNode.get(p.host) ?? 0) + 1);
      const key = (p: Pod) => [p.revision !== d.revision ? 0 : 1, p.ready ? 1 : 0, -onNode.get(p.host)!, -p.index];
      const victims = [...active].sort((a, b) => compareKeys(key(a), key(b))).slice(0, surplus);
      for (const pod of victims) this.deletePod(pod, undefined, `scale-down of deployment/${d.spec.name}`);
    }
    this.reconcile(d, -1);
  }

  /** The deployment's desired replica count. */
  replicasOf(deploymentName: string): number {
    return this.deployment(deploymentName).spec.replicas;
  }

  /** Pods of the deployment that are running and ready. */
  readyPods(deploymentName: string): number {
    return this.deployment(deploymentName).pods.filter((p) => p.phase === 'running' && p.ready).length;
  }

  /**
   * `kubectl drain --ignore-daemonsets`: cordons the node, then evicts every pod on it but DaemonSet pods, each with
   * its grace period unless one is given.
   */
  drain(host: Host, gracePeriodSeconds: number | undefined, cause: string): void {
    host.schedulable = false;
    this.ctx.note('warn', host.entity, 'node.cordoned', 'cordoned: no new pods are scheduled here', { cause });
    this.ctx.touchTopology();
    for (const pod of this.pods) {
      if (pod.host === host && pod.active && !this.deployment(pod.deployment).spec.perNode) this.deletePod(pod, gracePeriodSeconds, `drain of ${host.entity}`);
    }
  }

  /** The Node object is deleted: the pods still bound to it (DaemonSet pods, after a drain) go with it. */
  nodeDeleted(host: Host, cause: string): void {
    for (const pod of this.pods) if (pod.host === host && pod.active) this.deletePod(pod, undefined, cause);
  }

  /** The node takes pods again; ReplicaSets that could not place pods fill up now. */
  uncordon(host: Host, cause: string): void {
    if (host.schedulable) return;
    host.schedulable = true;
    this.ctx.note('info', host.entity, 'node.uncordoned', 'schedulable again', { cause });
    this.ctx.touchTopology();
    for (const d of this.deployments) this.reconcile(d, -1);
  }

  /**
   * A bad build: containers of the deployment exit `runSeconds` after each start, until `durationSeconds` from now, and
   * the kubelet restarts each in place after its CrashLoopBackOff delay. With `jitter` (0 to 1) each run lasts
   * runSeconds × (1 ± jitter) and the running containers exit within runSeconds × jitter instead of at once, so pods
   * drift apart as containers of a bad build do; without it they crash in step.
   */
  crashLoop(deploymentName: string, runSeconds: number, durationSeconds: number, cause: string, jitter = 0): void {
    const d = this.deployment(deploymentName);
    const runFor = seconds(runSeconds);
    d.crash = { runFor, jitter, until: (this.ctx.sched.now + seconds(durationSeconds)) as SimTime, cause };
    const spread = jitter > 0 ? ` (± ${Math.round(jitter * 100)} %)` : '';
    this.ctx.note('warn', `deployment/${d.spec.name}`, 'deployment.crash-loop', `containers exit ${runSeconds} s${spread} after each start for ${durationSeconds} s`, { cause });
    for (const pod of d.pods) {
      if (pod.phase !== 'running' || !pod.app) continue;
      if (jitter === 0) this.onCrash(pod);
      else this.scheduleCrash(pod, d, Math.round(runFor * jitter * this.crashRng(d).next()));
    }
  }

  /** The kubelet's view of the pod's probes, for the inspector; null when its deployment declares none. */
  probeSection(pod: Pod): InspectSection | null {
    return this.probes?.inspect(pod, this.restartCount(pod)) ?? null;
  }

  /** Restarts of a pod's container so far. */
  restartCount(pod: Pod): number {
    return this.restarts.get(pod.index)?.count ?? 0;
  }

  /** When the pod that held `ip` was deleted, if it was. */
  deletionTime(ip: number): SimTime | undefined {
    return this.deletedAt.get(ip);
  }

  deploymentNames(): string[] {
    return [...this.byName.keys()];
  }

  hasDeployment(name: string): boolean {
    return this.byName.has(name);
  }

  findPod(name: string): Pod | undefined {
    return this.pods.find((p) => p.name === name && p.phase !== 'gone');
  }

  private deployment(name: string): Deployment {
    const d = this.byName.get(name);
    if (!d) throw new Error(`no deployment named "${name}"`);
    return d;
  }

  private fenceposts(d: Deployment) {
    const [surge, unavailable] = d.spec.perNode ? [DAEMONSET_SURGE, DAEMONSET_UNAVAILABLE] : [DEFAULT_SURGE, DEFAULT_UNAVAILABLE];
    return resolveFenceposts(d.spec.maxSurge ?? surge, d.spec.maxUnavailable ?? unavailable, d.spec.replicas);
  }

  /** The Deployment and ReplicaSet controllers: keep `replicas` pods of the current template, rolling old ones out. */
  private reconcile(d: Deployment, replaced: number): void {
    if (d.spec.perNode) d.spec.replicas = this.hosts.filter((h) => h.inCluster && this.fits(d, h)).length;
    const active = d.pods.filter((p) => p.active);
    const current = active.filter((p) => p.revision === d.revision);
    // Newest first, as the ReplicaSet controller prefers to delete younger pods.
    const old = active.filter((p) => p.revision !== d.revision).reverse();
    const { surge, unavailable } = this.fenceposts(d);
    const plan = planRollout({
      replicas: d.spec.replicas,
      surge,
      unavailable,
      newActive: current.length,
      newReady: current.filter((p) => p.ready).length,
      oldActive: old.length,
      oldReady: old.filter((p) => p.ready).length,
    });
    d.waiting = false;
    for (let i = 0; i < plan.create; i++) {
      const place = this.placeFor(d);
      if (!place) {
        d.waiting = true;
        const views = d.spec.perNode ? [] : this.nodeViews(d);
        const why = views.some((v) => v.candidate) ? unschedulableReasons(views, d.spec.placement ?? NO_RULES) : 'no node is schedulable with a free pod address';
        const note = `${plan.create - i} pod(s) wait: ${why}`;
        if (note !== d.waitNote) this.ctx.note('warn', `deployment/${d.spec.name}`, 'pod.unschedulable', note);
        d.waitNote = note;
        break;
      }
      const pod = this.createPod(d.spec.name, place.host);
      if (replaced >= 0) pod.replaced = replaced;
      if (place.why !== null) this.ctx.causes.record('pod_scheduled', pod.entity, this.ctx.sched.now, { node: place.host.name, reason: place.why });
    }
    if (!d.waiting) d.waitNote = null;
    const unready = old.filter((p) => !p.ready).slice(0, plan.removeUnready);
    const ready = old.filter((p) => p.ready).slice(0, plan.removeReady);
    for (const pod of [...unready, ...ready]) this.deletePod(pod, undefined, `rolling update of deployment/${d.spec.name}`);
  }

  /**
   * Where the scheduler puts a new pod: among the schedulable nodes the selector allows with a free pod address, the
   * one kube-scheduler's filters and scores pick for the deployment's anti-affinity and spread constraints, the one
   * with the fewest active pods among equals (scheduling.ts). A DaemonSet's pod goes to an allowed node of the
   * cluster without one, cordoned or not, as its controller tolerates the unschedulable taint.
   */
  private placeFor(d: Deployment): { host: Host; why: string | null } | undefined {
    if (d.spec.perNode) {
      // Model choice: a node whose pod range is full gets no pod, where Kubernetes would leave one failing to get an
      // address from the CNI's IPAM (docs/limits.md#pod-addresses); either way no pod runs there.
      const host = this.hosts.find((h) => this.fits(d, h) && h.hasFreePodAddress() && h.inCluster && !d.pods.some((p) => p.active && p.host === h));
      return host && { host, why: null };
    }
    const views = this.nodeViews(d);
    const rules = d.spec.placement ?? NO_RULES;
    const index = chooseNode(views, rules);
    if (index < 0) return undefined;
    const why = rules.required.length + rules.preferred.length + rules.spread.length > 0 ? explainChoice(views, rules, index) : null;
    return { host: this.hosts[index]!, why };
  }

  /** Each node as the scheduler sees it for a new pod of `d`. */
  private nodeViews(d: Deployment): NodeView[] {
    return this.hosts.map((host) => {
      let own = 0;
      let terminating = 0;
      let load = 0;
      for (const pod of host.pods.values()) {
        const mine = pod.deployment === d.spec.name;
        if (pod.phase === 'terminating' && mine) terminating++;
        if (!pod.active) continue;
        load++;
        if (mine) own++;
      }
      const allowed = this.fits(d, host);
      return { labels: host.labels, own, terminating, load, candidate: allowed && host.schedulable && host.hasFreePodAddress(), counted: allowed && host.inCluster };
    });
  }

  private fits(d: Deployment, host: Host): boolean {
    return d.spec.nodes === undefined || d.spec.nodes.includes(host.name);
  }

  private nextName(d: Deployment): string {
    let name: string;
    do name = `${d.spec.name}-${d.nextOrdinal++}`;
    while (this.usedNames.has(name));
    return name;
  }

  private onStart(pod: Pod): void {
    if (pod.phase !== 'pending') return;
    pod.phase = 'running';
    const d = this.deployment(pod.deployment);
    // Ready as the app starts when no readiness probe gates it: the mini announcer reads it from start() on.
    pod.ready = !d.spec.probes?.readiness;
    pod.app?.start();
    if (this.startProbes(pod, d, 'running; not ready until its readiness probe passes')) this.becameReady(pod, 'pod.ready', 'running and ready');
    if (d.crash) this.armCrash(pod, d);
  }

  /**
   * The container runs and its probes start; true when it is ready at once, with no readiness probe to pass first
   * (docs/sources/kubernetes.md#container-probes).
   */
  private startProbes(pod: Pod, d: Deployment, waiting: string): boolean {
    const probes = d.spec.probes;
    if (probes) this.probes?.start(pod, probes, false);
    if (!probes?.readiness) return true;
    this.ctx.note('info', pod.entity, 'pod.started', waiting);
    this.ctx.touchTopology();
    return false;
  }

  /** The container turned Ready: its endpoint follows, and a rollout waiting on it moves on. */
  private becameReady(pod: Pod, kind: string, message: string): void {
    pod.ready = true;
    this.ctx.note('info', pod.entity, kind, message);
    this.ctx.touchTopology();
    this.endpointsChanged(pod.deployment);
    // A rollout moves on when a new pod turns Ready; the controller sees it through its informer.
    const d = this.deployment(pod.deployment);
    if (kind === 'pod.ready' && d.pods.some((p) => p.active && p.revision !== d.revision)) {
      this.ctx.sched.after(millis(this.settings.replaceDelayMs), this.createReplacement, d.index, -1);
    }
  }

  /** The readiness probe's result changed: the pod's endpoint follows (ready, or serving while it terminates). */
  /** What the kubelet's probes do to a pod: its readiness, and a restart on a failed liveness probe. */
  readinessChanged(pod: Pod, ready: boolean): void {
    if (!pod.app || (pod.phase !== 'running' && pod.phase !== 'terminating')) return;
    if (ready && pod.phase === 'running') {
      this.becameReady(pod, 'pod.ready', 'ready: its readiness probe passed');
      return;
    }
    pod.ready = ready;
    if (!ready) {
      const threshold = this.deployment(pod.deployment).spec.probes!.readiness!.failureThreshold;
      this.ctx.note('warn', pod.entity, 'pod.not-ready', `not ready: its readiness probe failed ${threshold} times in a row; its endpoint is ready=false`);
    }
    this.ctx.touchTopology();
    this.endpointsChanged(pod.deployment);
  }

  /** The liveness probe failed: the kubelet kills the container and restarts it after its back-off. */
  livenessFailed(pod: Pod, why: string): void {
    if (pod.phase !== 'running' || !pod.app) return;
    this.ctx.causes.record('liveness_killed', pod.entity, this.ctx.sched.now, { reason: why });
    this.stopContainer(pod, `Container ${pod.deployment} failed liveness probe, will be restarted`, pod.host.entity);
  }

  /** SIGTERM reaches the app once preStop is done; it exits when it has drained. */
  private onSigterm(pod: Pod): void {
    if (pod.phase !== 'terminating') return;
    // A container waiting out its crash back-off has no process to signal.
    if (!pod.app) this.tearDown(pod, 'exited');
    else pod.app.terminate(bound(this, this.tearDown, pod, 'exited'));
  }

  private armCrash(pod: Pod, d: Deployment): void {
    const crash = d.crash!;
    const runFor = crash.jitter > 0 ? Math.round(this.crashRng(d).jitter(crash.runFor, crash.jitter)) : crash.runFor;
    if (this.ctx.sched.now + runFor >= crash.until) return;
    this.restartsOf(pod).startedAt = this.ctx.sched.now;
    this.scheduleCrash(pod, d, runFor);
  }

  private scheduleCrash(pod: Pod, d: Deployment, after: number): void {
    const at = this.ctx.sched.now + after;
    if (at >= d.crash!.until) return;
    const r = this.restartsOf(pod);
    this.ctx.sched.cancel(r.crashTimer);
    r.crashTimer = this.ctx.sched.at(at as SimTime, this.crashContainer, pod.index);
  }

  private crashRng(d: Deployment): RngStream {
    let stream = this.crashStreams.get(d.index);
    if (!stream) this.crashStreams.set(d.index, (stream = this.ctx.rng.stream(`crash-loop/${d.spec.name}`)));
    return stream;
  }

  private restartsOf(pod: Pod): Restarts {
    let r = this.restarts.get(pod.index);
    if (!r) this.restarts.set(pod.index, (r = { count: 0, startedAt: this.ctx.sched.now, crashTimer: -1 }));
    return r;
  }

  /** The container exits by itself. */
  private onCrash(pod: Pod): void {
    if (pod.phase !== 'running' || !pod.app) return;
    const d = this.deployment(pod.deployment);
    this.stopContainer(pod, 'container exited', d.crash?.cause ?? `deployment/${d.spec.name}`);
  }

  /** The container is gone: the kernel resets its sockets, readiness fails, and the kubelet waits out its back-off. */
  private stopContainer(pod: Pod, what: string, cause: string): void {
    const r = this.restartsOf(pod);
    // Applied again while a crash was pending: this crash replaces that one.
    this.ctx.sched.cancel(r.crashTimer);
    r.crashTimer = -1;
    const now = this.ctx.sched.now;
    if (r.count > 0 && now - r.startedAt >= seconds(CRASH_BACKOFF_RESET_S)) r.count = 0;
    pod.ready = false;
    pod.tcp.killAll();
    pod.udp.unbindAll();
    pod.app?.killed?.();
    pod.app = null;
    this.probes?.stop(pod);
    const backoff = Math.min(CRASH_BACKOFF_INITIAL_S * 2 ** r.count, CRASH_BACKOFF_MAX_S);
    r.count++;
    const message = `${what} (restart ${formatCount(r.count)}); CrashLoopBackOff: back-off ${backoff} s restarting failed container`;
    this.ctx.note('warn', pod.entity, 'pod.crashed', message, { cause });
    this.ctx.touchTopology();
    this.endpointsChanged(pod.deployment);
    this.ctx.sched.after(seconds(backoff), this.restartContainer, pod.index);
  }

  /** The kubelet starts the container again in the same pod: same address, a fresh process, Ready once it runs. */
  private onRestart(pod: Pod): void {
    if (pod.phase !== 'running' || pod.app) return;
    const d = this.deployment(pod.deployment);
    pod.app = d.makeApp(pod);
    pod.ready = !d.spec.probes?.readiness;
    pod.app.start();
    const restarted = `container restarted (${this.restartCount(pod)} restarts so far)`;
    if (this.startProbes(pod, d, `${restarted}; not ready until its readiness probe passes`)) this.becameReady(pod, 'pod.restarted', restarted);
    if (d.crash) this.armCrash(pod, d);
  }

  private onKill(pod: Pod): void {
    if (pod.phase !== 'terminating') return;
    this.ctx.note('warn', pod.entity, 'pod.killed', 'SIGKILL');
    this.tearDown(pod, 'killed');
  }

  /** The process is gone: its sockets are reset by the kernel and its network namespace and address go with it. */
  private tearDown(pod: Pod, how: 'exited' | 'killed'): void {
    if (pod.phase === 'gone') return;
    pod.phase = 'gone';
    pod.ready = false;
    this.probes?.stop(pod);
    pod.tcp.killAll();
    pod.udp.unbindAll();
    pod.app?.killed?.();
    this.ctx.sched.after(millis(this.settings.netnsTeardownMs), this.teardownNetns, pod.index);
    this.ctx.note('info', pod.entity, 'pod.gone', how === 'exited' ? 'exited after a graceful shutdown' : 'removed after SIGKILL');
    this.ctx.touchTopology();
    this.endpointsChanged(pod.deployment);
    this.ctx.sched.after(GONE_SHOWN_FOR, this.forgetPod, pod.index);
    this.retryWaiting();
  }

  /**
   * kube-scheduler moves pods it could not place back to its active queue when an assigned pod is deleted: the pod
   * gone may have held the anti-affinity domain, and its address, once its netns goes, the room (scheduling.ts).
   */
  private retryWaiting(): void {
    for (const d of this.deployments) if (d.waiting) this.reconcile(d, -1);
  }

  /**
   * The EndpointSlice controller rewrites the slices of the Services selecting the deployment at once; every node's
   * kube-proxy hears of a change after the watch latency and then syncs at its own rate (kube-proxy.ts).
   */
  private endpointsChanged(deployment: string): void {
    if (!this.running) return;
    this.services.forEach((service, index) => {
      if (service.selector !== deployment) return;
      if (!service.slice.update(this.deployment(deployment).pods, service.targetPort)) return;
      this.ctx.causes.record('endpoints_changed', `deployment/${deployment}`, this.ctx.sched.now);
      this.ctx.sched.after(millis(this.settings.endpointPropagationMs), this.notifyProxies, index);
    });
  }
}

/** Orders two sort keys element by element. */
function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
