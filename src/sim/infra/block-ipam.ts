import { cidrSize, formatCidr, type Cidr, type Ipv4 } from '../net/ipv4';

/**
 * Calico-style IPAM on one node: addresses come from blocks (a /26 by default) that the node claims from its pool one
 * at a time, when the blocks it holds are full; inside its blocks it hands out the lowest free address, the block's
 * first included (docs/sources/calico.md#ip-pools-and-blocks). Each allocation carries a handle naming what holds it: a
 * pod, or the node's IPIP tunnel (`ipip-tunnel-addr-<node>`). Model choice: each node's pool is its podCidr (a per-node
 * IPPool).
 */
export class BlockIpam {
  /** Claimed blocks, in the order the node claimed them. */
  readonly blocks: Cidr[] = [];
  private readonly handles = new Map<number, string>();
  private readonly blockSize: number;
  /** Addresses held per claimed block, by block base. */
  private readonly inUse = new Map<number, number>();

  constructor(
    readonly pool: Cidr,
    readonly blockPrefix: number,
  ) {
    if (blockPrefix < pool.prefix || blockPrefix > 32) throw new RangeError(`block size /${blockPrefix} does not fit the pool ${formatCidr(pool)}`);
    this.blockSize = 2 ** (32 - blockPrefix);
  }

  /** The lowest free address of the held blocks, claiming the pool's next block when they are full; null when the pool is. */
  allocate(handle: string): Ipv4 | null {
    for (const block of this.blocks) {
      if (this.inUse.get(block.base)! >= this.blockSize) continue;
      const ip = this.lowestFree(block);
      if (ip !== null) return this.assign(ip, handle);
    }
    const block = this.claimNext();
    return block ? this.assign(block.base, handle) : null;
  }

  /** Records an address as held (an explicitly placed pod), claiming its block if the node does not hold it yet. */
  assign(ip: Ipv4, handle: string): Ipv4 {
    const base = this.blockOf(ip);
    if (!this.inUse.has(base)) this.claim(base as Ipv4);
    if (!this.handles.has(ip)) this.inUse.set(base, this.inUse.get(base)! + 1);
    this.handles.set(ip, handle);
    return ip;
  }

  release(ip: number): void {
    if (!this.handles.delete(ip)) return;
    const base = this.blockOf(ip);
    this.inUse.set(base, this.inUse.get(base)! - 1);
  }

  handleOf(ip: number): string | undefined {
    return this.handles.get(ip);
  }

  /** Addresses held in a block. */
  used(block: Cidr): number {
    return this.inUse.get(block.base) ?? 0;
  }

  get capacity(): number {
    return this.blockSize;
  }

  /** Addresses of the pool no one holds, in claimed blocks or not. */
  get free(): number {
    return cidrSize(this.pool) - this.handles.size;
  }

  private lowestFree(block: Cidr): Ipv4 | null {
    for (let i = 0; i < this.blockSize; i++) if (!this.handles.has(block.base + i)) return (block.base + i) as Ipv4;
    return null;
  }

  private claimNext(): Cidr | null {
    const count = cidrSize(this.pool) / this.blockSize;
    for (let b = 0; b < count; b++) {
      const base = (this.pool.base + b * this.blockSize) as Ipv4;
      if (!this.inUse.has(base)) return this.claim(base);
    }
    return null;
  }

  private blockOf(ip: number): number {
    return ip - ((ip - this.pool.base) % this.blockSize);
  }

  private claim(base: Ipv4): Cidr {
    const block = { base, prefix: this.blockPrefix };
    this.blocks.push(block);
    this.inUse.set(base, 0);
    return block;
  }
}
