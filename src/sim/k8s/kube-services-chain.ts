const EMPTY = -1;
const MIN_CAPACITY = 64;

function hashAddress(ip: number, portProto: number): number {
  let h = Math.imul(ip ^ 0x9e3779b9, 0x85ebca6b) ^ portProto;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The address match of a node's KUBE-SERVICES and KUBE-NODEPORTS chains: (destination IP, port, protocol) → the id
 * of the rules that handle it. Node ports are stored under IP 0 (iptables matches them on any local address).
 * Open addressing with linear probing in typed arrays, so a lookup allocates nothing.
 */
export class KubeServicesChain {
  private ips = new Uint32Array(MIN_CAPACITY);
  private portProtos = new Int32Array(MIN_CAPACITY);
  private ids = new Int32Array(MIN_CAPACITY).fill(EMPTY);
  private mask = MIN_CAPACITY - 1;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The id stored for the address, or -1. */
  find(ip: number, port: number, proto: number): number {
    const slot = this.slotOf(ip >>> 0, port | (proto << 16));
    return slot < 0 ? EMPTY : this.ids[slot]!;
  }

  set(ip: number, port: number, proto: number, id: number): void {
    if ((this.count + 1) * 2 > this.ids.length) this.grow();
    const key = port | (proto << 16);
    const u = ip >>> 0;
    let i = hashAddress(u, key) & this.mask;
    while (this.ids[i] !== EMPTY) {
      if (this.ips[i] === u && this.portProtos[i] === key) {
        this.ids[i] = id;
        return;
      }
      i = (i + 1) & this.mask;
    }
    this.ips[i] = u;
    this.portProtos[i] = key;
    this.ids[i] = id;
    this.count++;
  }

  /** Removes the address if it maps to `id` (another Service may have taken the address since). */
  delete(ip: number, port: number, proto: number, id: number): void {
    let hole = this.slotOf(ip >>> 0, port | (proto << 16));
    if (hole < 0 || this.ids[hole] !== id) return;
    // Backward-shift deletion: pull later entries of the probe run into the hole unless that would put them
    // before their home slot.
    for (let j = (hole + 1) & this.mask; this.ids[j] !== EMPTY; j = (j + 1) & this.mask) {
      const home = hashAddress(this.ips[j]!, this.portProtos[j]!) & this.mask;
      if (((j - home) & this.mask) >= ((j - hole) & this.mask)) {
        this.ips[hole] = this.ips[j]!;
        this.portProtos[hole] = this.portProtos[j]!;
        this.ids[hole] = this.ids[j]!;
        hole = j;
      }
    }
    this.ids[hole] = EMPTY;
    this.count--;
  }

  private slotOf(ip: number, key: number): number {
    for (let i = hashAddress(ip, key) & this.mask; this.ids[i] !== EMPTY; i = (i + 1) & this.mask) {
      if (this.ips[i] === ip && this.portProtos[i] === key) return i;
    }
    return -1;
  }

  private grow(): void {
    const { ips, portProtos, ids } = this;
    const capacity = ids.length * 2;
    this.ips = new Uint32Array(capacity);
    this.portProtos = new Int32Array(capacity);
    this.ids = new Int32Array(capacity).fill(EMPTY);
    this.mask = capacity - 1;
    this.count = 0;
    for (let i = 0; i < ids.length; i++) {
      if (ids[i] !== EMPTY) this.set(ips[i]!, portProtos[i]! & 0xffff, portProtos[i]! >>> 16, ids[i]!);
    }
  }
}
