import type { InspectSection } from '../api';
import type { Counter } from '../core/metrics';
import type { EventHandle, HandlerId } from '../core/scheduler';
import type { RngStream } from '../core/rng';
import { seconds } from '../core/time';
import type { SimContext } from '../context';
import type { Pod } from '../infra/pod';
import { HTTP_OK } from '../apps/http-request';
import { formatIpv4 } from '../net/ipv4';
import { Payload, type PayloadId } from '../net/packet';
import type { CloseCause, Socket, SocketOwner } from '../net/tcp';
import type { ProbeSpec } from '../scenario/deployments';
import { withMember } from '../core/snapshot';

export type ProbeKind = 'readiness' | 'liveness';

/** A probe as the kubelet runs it: the action's port, and the timing and thresholds with their defaults applied. */
export interface ProbeSettings {
  http: boolean;
  port: number;
  initialDelaySeconds: number;
  periodSeconds: number;
  timeoutSeconds: number;
  failureThreshold: number;
  successThreshold: number;
}

/** A probe of the scenario as the kubelet runs it: its action's port, the deployment's when left out. */
export function probeSettings(probe: ProbeSpec | undefined, port: number): ProbeSettings | undefined {
  if (!probe) return undefined;
  const action = probe.httpGet ?? probe.tcpSocket;
  return {
    http: probe.httpGet !== undefined,
    port: action?.port ?? port,
    initialDelaySeconds: probe.initialDelaySeconds,
    periodSeconds: probe.periodSeconds,
    timeoutSeconds: probe.timeoutSeconds,
    failureThreshold: probe.failureThreshold,
    successThreshold: probe.successThreshold,
  };
}

/** What the kubelet does with a probe's verdict: readiness flips the container's Ready, liveness restarts it. */
export interface ProbeEffects {
  readinessChanged(pod: Pod, ready: boolean): void;
  livenessFailed(pod: Pod, why: string): void;
}

/** One prober worker of one container: its last result, how many in a row, and the probe in flight. */
interface Worker {
  index: number;
  pod: Pod;
  kind: ProbeKind;
  settings: ProbeSettings;
  lastOk: boolean | null;
  run: number;
  /** The result the kubelet acts on: readiness starts failing, liveness passing (docs/sources/kubernetes.md#container-probes). */
  result: boolean;
  timer: EventHandle;
  socket: Socket | null;
  /** A tick came while a probe was still out (timeout longer than the period). */
  tickWaiting: boolean;
  stopped: boolean;
}

// An HTTP answer carries its status as the message when the server sets one (the health-check server does); a plain
// echo of the request id is a 200.
const FIRST_STATUS = 100;
const LAST_STATUS = 599;
// An HTTP probe passes on 200–399 (docs/sources/kubernetes.md#container-probes).
const FIRST_FAILING_STATUS = 400;

const TITLE: Record<ProbeKind, string> = { readiness: 'Readiness', liveness: 'Liveness' };

/**
 * The kubelet's prober: for each container with probes, a worker that connects from the node's network namespace to
 * the pod's address every period (TCP connect, or an HTTP GET), gives up after the timeout, and changes its result
 * after `failureThreshold` failures or `successThreshold` successes in a row (docs/sources/kubernetes.md#container-probes).
 */
export class KubeletProbes {
  private readonly workers: Worker[] = [];
  private readonly byPod = new Map<number, Worker[]>();
  private readonly tick: HandlerId;
  private readonly expire: HandlerId;
  private readonly sent: Counter;
  private readonly failed: Record<ProbeKind, Counter>;
  /** Phases of the probes of pods already running when the run starts, as after a kubelet start. */
  private phaseRng: RngStream | null = null;

  constructor(
    private readonly ctx: SimContext,
    private readonly effects: ProbeEffects,
  ) {
    this.tick = ctx.sched.register('kubelet.probe', withMember(this, this.probe, this.workers));
    this.expire = ctx.sched.register('kubelet.probe-timeout', withMember(this, this.timedOut, this.workers));
    const m = ctx.metrics;
    this.sent = m.counter('kubelet.probes.sent');
    this.failed = { readiness: m.counter('kubelet.probes.failed', { probe: 'readiness' }), liveness: m.counter('kubelet.probes.failed', { probe: 'liveness' }) };
  }

  /**
   * The container started: its workers probe `initialDelaySeconds` from now and every period after. A container of the
   * starting state (`running`) has run for a while: its results already pass and its first probe falls somewhere in
   * the first period.
   */
  start(pod: Pod, probes: Partial<Record<ProbeKind, ProbeSettings>>, running: boolean): void {
    this.stop(pod);
    const list: Worker[] = [];
    for (const kind of ['readiness', 'liveness'] as const) {
      const settings = probes[kind];
      if (!settings) continue;
      const index = this.workers.length;
      const w: Worker = { index, pod, kind, settings, lastOk: null, run: 0, result: running || kind === 'liveness', timer: -1, socket: null, tickWaiting: false, stopped: false };
      this.workers.push(w);
      list.push(w);
      let delay = settings.initialDelaySeconds;
      if (running) {
        this.phaseRng ??= this.ctx.rng.stream('kubelet-probes');
        delay = this.phaseRng.next() * settings.periodSeconds;
      }
      w.timer = this.ctx.sched.after(seconds(delay), this.tick, index);
    }
    if (list.length > 0) this.byPod.set(pod.index, list);
  }

  /** The container stopped: its workers stop, and a probe in flight is abandoned. */
  stop(pod: Pod): void {
    const list = this.byPod.get(pod.index);
    if (!list) return;
    // The workers stay listed, stopped, so the inspector still shows their last results while the container is down.
    for (const w of list) {
      w.stopped = true;
      this.ctx.sched.cancel(w.timer);
      if (w.socket) w.pod.host.tcp.abort(w.socket);
    }
  }

  /** The pod's probes as the kubelet holds them, for the inspector: what each sends, and what it concluded so far. */
  inspect(pod: Pod, restarts: number): InspectSection | null {
    const list = this.byPod.get(pod.index);
    if (!list) return null;
    const rows: [string, string][] = list.map((w) => {
      const s = w.settings;
      const action = `${s.http ? 'httpGet' : 'tcpSocket'} ${formatIpv4(pod.ip)}:${s.port} every ${s.periodSeconds} s (timeout ${s.timeoutSeconds} s)`;
      const last = w.lastOk === null ? 'no probe yet' : `last ${w.lastOk ? 'passed' : 'failed'} (${w.run} in a row of ${w.lastOk ? s.successThreshold : s.failureThreshold} needed)`;
      return [w.kind, `${action}; ${w.stopped ? 'stopped, the container is not running' : w.result ? 'passing' : 'failing'}; ${last}`];
    });
    rows.push(['restarts', String(restarts)]);
    return { title: 'Probes (kubelet)', rows };
  }

  private probe(w: Worker): void {
    if (w.stopped) return;
    w.timer = this.ctx.sched.after(seconds(w.settings.periodSeconds), this.tick, w.index);
    // A probe runs to its answer or timeout; a tick that comes meanwhile waits in the ticker's channel and fires as it ends.
    if (w.socket) w.tickWaiting = true;
    else this.send(w);
  }

  /** One probe: a connection from the node to the pod's address, and a GET on it for an HTTP probe. */
  private send(w: Worker): void {
    this.sent.inc();
    const socket = w.pod.host.tcp.connect(w.pod.ip, w.settings.port, new ProbeConnection(this, w));
    w.socket = socket;
    this.ctx.sched.after(seconds(w.settings.timeoutSeconds), this.expire, w.index, socket.id);
  }

  private timedOut(w: Worker, socketId: number): void {
    if (w.socket?.id === socketId) this.abandon(w, w.socket);
  }

  /** The probe's time is up: its connection is aborted and it counts as failed, worded as Go's dialler and client do. */
  private abandon(w: Worker, socket: Socket): void {
    w.socket = null;
    w.pod.host.tcp.abort(socket);
    const target = this.target(w);
    const why = w.settings.http ? `Get "http://${target}/": context deadline exceeded (Client.Timeout exceeded while awaiting headers)` : `dial tcp ${target}: i/o timeout`;
    this.verdict(w, why);
  }

  /** The probe's connection closed before an answer (from ProbeConnection). */
  closed(w: Worker, socket: Socket, error: string): void {
    if (w.socket !== socket) return;
    w.socket = null;
    this.verdict(w, w.settings.http ? `Get "http://${this.target(w)}/": ${error}` : error);
  }

  /** The probe has its outcome (from ProbeConnection). */
  finish(w: Worker, socket: Socket, why: string | null): void {
    if (w.socket !== socket) return;
    w.socket = null;
    w.pod.host.tcp.close(socket);
    this.verdict(w, why);
  }

  target(w: Worker): string {
    return `${formatIpv4(w.pod.ip)}:${w.settings.port}`;
  }

  /** One probe's outcome (`why` null for a pass): the kubelet acts once enough equal outcomes come in a row. */
  private verdict(w: Worker, why: string | null): void {
    if (w.stopped) return;
    const ok = why === null;
    if (!ok) {
      this.failed[w.kind].inc();
      const message = `${TITLE[w.kind]} probe failed: ${why}`;
      this.ctx.note('warn', w.pod.entity, 'probe.failed', message, { cause: w.pod.host.entity });
      this.ctx.causes.record(`${w.kind}_probe_failed`, w.pod.entity, this.ctx.sched.now, { reason: why, node: w.pod.host.entity });
    }
    w.run = w.lastOk === ok ? w.run + 1 : 1;
    w.lastOk = ok;
    if (ok !== w.result && w.run >= (ok ? w.settings.successThreshold : w.settings.failureThreshold)) {
      w.result = ok;
      if (w.kind === 'readiness') this.effects.readinessChanged(w.pod, ok);
      else this.effects.livenessFailed(w.pod, why!);
    }
    if (w.tickWaiting && !w.stopped) {
      w.tickWaiting = false;
      this.send(w);
    }
  }
}

/** A failed connect as Go's dialler words it. */
function dialError(cause: CloseCause, target: string): string {
  if (cause === 'syn_timeout') return `dial tcp ${target}: i/o timeout`;
  return cause === 'reset' ? `dial tcp ${target}: connect: connection refused` : `dial tcp ${target}: connection closed`;
}

/** One probe's connection from the node to the pod: a GET once connected for an HTTP probe, a pass on connecting for TCP. */
export class ProbeConnection implements SocketOwner {
  private connected = false;

  constructor(
    private readonly probes: KubeletProbes,
    private readonly w: Worker,
  ) {}

  onConnected(socket: Socket): void {
    this.connected = true;
    if (this.w.settings.http) this.w.pod.host.tcp.send(socket, Payload.request, 0);
    else this.probes.finish(this.w, socket, null);
  }

  onData(socket: Socket, payload: PayloadId, message: number): void {
    if (payload !== Payload.response) return;
    const status = message >= FIRST_STATUS && message <= LAST_STATUS ? message : HTTP_OK;
    this.probes.finish(this.w, socket, status < FIRST_FAILING_STATUS ? null : `HTTP probe failed with statuscode: ${status}`);
  }

  onClosed(socket: Socket, cause: CloseCause): void {
    this.probes.closed(this.w, socket, this.connected ? 'read: connection reset by peer' : dialError(cause, this.probes.target(this.w)));
  }
}
