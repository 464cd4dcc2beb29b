import type { SimContext } from '../context';
import type { Gauge } from '../core/metrics';
import type { HandlerId } from '../core/scheduler';
import { seconds, toSeconds, type Duration } from '../core/time';
import type { Workloads } from './workloads';
import { bound } from '../core/snapshot';

/** What a HorizontalPodAutoscaler aims at: requests per second per ready pod, a custom metric. */
export interface AutoscaleSpec {
  minReplicas: number;
  maxReplicas: number;
  targetRequestsPerSecond: number;
}

export interface HpaSettings {
  syncPeriod: Duration;
  tolerance: number;
  downscaleStabilization: Duration;
}

// Scale-up policy defaults: at most double, or add 4 pods, per period, whichever is more (HPA v2 default behavior).
const UP_PERCENT = 100;
const UP_PODS = 4;

/**
 * The HorizontalPodAutoscaler controller for one deployment, on a per-pod request rate (as prometheus-adapter serves
 * an ingress controller's request counter). Every sync period it computes desired = ceil(ready × current / target),
 * leaves the scale alone within the tolerance, limits a scale-up by the default policy, and scales down only to the
 * highest recommendation of the stabilization window, as the Kubernetes HPA algorithm does.
 */
export class Autoscaler {
  private readonly sync: HandlerId;
  private lastServed = 0;
  private readonly recommendations: { t: number; replicas: number }[] = [];
  /** The HPA's status.desiredReplicas. */
  private readonly desired: Gauge;

  constructor(
    private readonly ctx: SimContext,
    private readonly workloads: Workloads,
    readonly deployment: string,
    private readonly spec: AutoscaleSpec,
    private readonly settings: HpaSettings,
    /** Requests the deployment's pods have taken so far. */
    private readonly served: () => number,
  ) {
    this.sync = ctx.sched.register(`hpa.sync/${deployment}`, bound(this, this.onSync));
    this.desired = ctx.metrics.gauge('hpa.desired_replicas', { deployment });
  }

  start(): void {
    this.desired.set(this.workloads.replicasOf(this.deployment));
    this.lastServed = this.served();
    this.ctx.sched.after(this.settings.syncPeriod, this.sync);
  }

  private onSync(): void {
    const now = this.ctx.sched.now;
    this.ctx.sched.after(this.settings.syncPeriod, this.sync);
    const served = this.served();
    const rate = (served - this.lastServed) / toSeconds(this.settings.syncPeriod);
    this.lastServed = served;
    const current = this.workloads.replicasOf(this.deployment);
    const ready = this.workloads.readyPods(this.deployment);
    if (ready === 0) return;
    const perPod = rate / ready;
    const ratio = perPod / this.spec.targetRequestsPerSecond;
    let desired = Math.abs(ratio - 1) <= this.settings.tolerance ? current : Math.ceil(ready * ratio);
    desired = Math.min(desired, Math.max(current + UP_PODS, Math.ceil(current * (1 + UP_PERCENT / 100))));
    desired = Math.min(this.spec.maxReplicas, Math.max(this.spec.minReplicas, desired));
    this.recommendations.push({ t: now, replicas: desired });
    while (this.recommendations[0]!.t < now - this.settings.downscaleStabilization) this.recommendations.shift();
    // Scale down only as far as the highest recommendation of the window allows, so a dip does not flap the scale.
    if (desired < current) desired = Math.min(current, Math.max(...this.recommendations.map((r) => r.replicas)));
    this.desired.set(desired);
    if (desired === current) return;
    const reason = `${perPod.toFixed(1)} requests/s per pod against a target of ${this.spec.targetRequestsPerSecond}`;
    const entity = `deployment/${this.deployment}`;
    this.ctx.note('info', entity, 'hpa.scaled', `HPA: ${reason}: ${current} → ${desired} replicas`);
    this.ctx.causes.record('hpa_scaled', entity, now, { from: current, to: desired, perPod: Math.round(perPod * 10) / 10, target: this.spec.targetRequestsPerSecond });
    this.workloads.scale(this.deployment, desired, `hpa/${this.deployment}`);
  }
}

/** HPA defaults from kube-controller-manager: --horizontal-pod-autoscaler-sync-period 15 s, tolerance 0.1, downscale stabilization 300 s. */
export function hpaSettings(p: { syncPeriodS: number; tolerance: number; downscaleStabilizationS: number }): HpaSettings {
  return { syncPeriod: seconds(p.syncPeriodS), tolerance: p.tolerance, downscaleStabilization: seconds(p.downscaleStabilizationS) };
}
