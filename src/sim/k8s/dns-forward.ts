/** Pieces of CoreDNS's forward plugin that decide whether and how long a query waits upstream (REFERENCE B.1). */

// kubeadm's Corefile sets `forward . /etc/resolv.conf { max_concurrent 1000 }` (REFERENCE B.2).
export const KUBEADM_MAX_CONCURRENT = 1000;
// Each concurrent query costs about 2 KB (forward plugin README, REFERENCE B.1).
export const BYTES_PER_CONCURRENT_QUERY = 2048;

/**
 * max_concurrent: a query takes a slot on arrival; past the limit it is answered REFUSED at once, which is not a
 * health failure. Holding slots is what node-local DNS's memory grows with.
 */
export class MaxConcurrent {
  inUse = 0;
  refused = 0;

  constructor(readonly max: number) {}

  tryAcquire(): boolean {
    if (this.inUse >= this.max) {
      this.refused++;
      return false;
    }
    this.inUse++;
    return true;
  }

  release(): void {
    if (this.inUse === 0) throw new Error('max_concurrent: release without a held slot');
    this.inUse--;
  }

  get memoryBytes(): number {
    return this.inUse * BYTES_PER_CONCURRENT_QUERY;
  }
}

/**
 * The forward plugin's adaptive dial timeout: twice a running average of dial times, clamped to [1 s, 30 s]; the
 * average starts at 15 s and moves a quarter of the way to each observed dial (plugin/pkg/proxy, REFERENCE B.1).
 */
export class AdaptiveDialTimeout {
  private averageMs = 15_000;

  observe(dialMs: number): void {
    this.averageMs += (dialMs - this.averageMs) / 4;
  }

  get timeoutMs(): number {
    return Math.min(30_000, Math.max(1_000, 2 * this.averageMs));
  }
}
