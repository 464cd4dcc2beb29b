/** IPv4 addresses as unsigned 32-bit integers, and CIDR blocks. */
export type Ipv4 = number & { readonly __ipv4: unique symbol };

export interface Cidr {
  base: Ipv4;
  prefix: number;
}

const OCTET = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export function parseIpv4(text: string): Ipv4 | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!OCTET.test(part)) return null;
    value = value * 256 + Number(part);
  }
  return value as Ipv4;
}

export function ipv4(text: string): Ipv4 {
  const ip = parseIpv4(text);
  if (ip === null) throw new Error(`not an IPv4 address: ${text}`);
  return ip;
}

export function formatIpv4(ip: number): string {
  return `${(ip >>> 24) & 255}.${(ip >>> 16) & 255}.${(ip >>> 8) & 255}.${ip & 255}`;
}

export function maskOf(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

export function parseCidr(text: string): Cidr | null {
  const [addr, bits, extra] = text.split('/');
  if (addr === undefined || bits === undefined || extra !== undefined || !/^\d{1,2}$/.test(bits)) return null;
  const prefix = Number(bits);
  const ip = parseIpv4(addr);
  if (ip === null || prefix > 32) return null;
  if ((ip & ~maskOf(prefix)) >>> 0 !== 0) return null;
  return { base: ip, prefix };
}

export function cidr(text: string): Cidr {
  const c = parseCidr(text);
  if (c === null) throw new Error(`not an IPv4 CIDR: ${text}`);
  return c;
}

export function formatCidr(c: Cidr): string {
  return `${formatIpv4(c.base)}/${c.prefix}`;
}

export function cidrContains(c: Cidr, ip: number): boolean {
  return (ip & maskOf(c.prefix)) >>> 0 === c.base;
}

export function cidrSize(c: Cidr): number {
  return 2 ** (32 - c.prefix);
}
