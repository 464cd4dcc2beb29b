import { formatIpv4, parseIpv4 } from './ipv4';

/**
 * An X-Forwarded-For list: the addresses it names, client first, each proxy's peer appended after
 * (docs/sources/load-balancers.md#forwarded-headers). Model choice: IPv4 numbers in a fixed Uint32Array that travels
 * with the request, so proxies rewrite it in place without allocating; strings exist only at the edges (a
 * client-supplied header, the trace and the UI).
 */
export interface ForwardedFor {
  readonly ips: Uint32Array;
  length: number;
  /** Entries lost off the left end because the list was full. */
  dropped: number;
}

/** Stands for a token that is no IPv4 address (`unknown`, an obfuscated identifier, garbage a client typed). */
export const XFF_UNKNOWN = 0;

// Model choice: 16 hops, far more than any real proxy chain; a longer (spoofed) list keeps its rightmost entries.
export const DEFAULT_XFF_CAPACITY = 16;

/**
 * What a proxy does with the header: `append` its peer (nginx `$proxy_add_x_forwarded_for`, BIG-IP Insert
 * X-Forwarded-For); `replace` whatever the client sent with its peer alone; `preserve` leave it untouched (an L4 hop,
 * or the option off).
 */
export type XffPolicy = 'append' | 'replace' | 'preserve';

/** What each policy does to the header, in words for the inspector and request journeys. */
export const XFF_POLICY_TEXT: Record<XffPolicy, string> = {
  preserve: 'passed on as the client sent it',
  append: "the client's address appended",
  replace: "reset to the client's address",
};

export function createForwardedFor(capacity = DEFAULT_XFF_CAPACITY): ForwardedFor {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`X-Forwarded-For capacity must be a positive integer: ${capacity}`);
  return { ips: new Uint32Array(capacity), length: 0, dropped: 0 };
}

export function clearForwardedFor(list: ForwardedFor): void {
  list.length = 0;
  list.dropped = 0;
}

/** Appends one address on the right; a full list drops its leftmost entry. */
export function appendForwardedFor(list: ForwardedFor, ip: number): void {
  if (list.length === list.ips.length) {
    list.ips.copyWithin(0, 1);
    list.length--;
    list.dropped++;
  }
  list.ips[list.length++] = ip;
}

/** What a proxy that received the request from `peer` does to the list under `policy`. */
export function forwardThrough(list: ForwardedFor, policy: XffPolicy, peer: number): void {
  if (policy === 'preserve') return;
  if (policy === 'replace') clearForwardedFor(list);
  appendForwardedFor(list, peer);
}

/**
 * The client address a backend logs when it trusts the last `trustedHops` proxies: it walks from its socket peer
 * leftwards over one entry per trusted proxy. 0 logs the peer; more hops than entries (or Infinity, "take the
 * leftmost") returns the leftmost entry, which is whatever the client wrote if the first proxy appended to it.
 */
export function clientAddress(list: ForwardedFor, peer: number, trustedHops: number): number {
  if (trustedHops <= 0 || list.length === 0) return peer;
  const index = list.length - trustedHops;
  return list.ips[index < 0 ? 0 : index]!;
}

/** Parses a header value such as `203.0.113.7, 10.0.0.5`; tokens that are not IPv4 addresses become XFF_UNKNOWN. */
export function parseForwardedFor(text: string, into: ForwardedFor = createForwardedFor()): ForwardedFor {
  clearForwardedFor(into);
  for (const token of text.split(',')) {
    const trimmed = token.trim();
    if (trimmed !== '') appendForwardedFor(into, parseIpv4(trimmed) ?? XFF_UNKNOWN);
  }
  return into;
}

export function formatForwardedFor(list: ForwardedFor): string {
  const parts: string[] = [];
  for (let i = 0; i < list.length; i++) parts.push(node(list.ips[i]!));
  return parts.join(', ');
}

/** Parameters of the element the forwarding proxy adds last (RFC 7239 §5). */
export interface ForwardedParams {
  /** The port the client connected from, for the last `for=`. */
  forPort?: number;
  /** The proxy's own interface address, and port. */
  by?: number;
  byPort?: number;
  proto?: 'http' | 'https';
  host?: string;
}

/**
 * The RFC 7239 `Forwarded` value equivalent to the list: one `for=` element per hop, the last one carrying the
 * forwarding proxy's `by`, `proto` and `host`. Values with a port are quoted, as the RFC requires for `:`.
 */
export function forwardedValue(list: ForwardedFor, last: ForwardedParams = {}): string {
  const elements: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const isLast = i === list.length - 1;
    const pairs = [`for=${nodeValue(list.ips[i]!, isLast ? last.forPort : undefined)}`];
    if (isLast) {
      if (last.by !== undefined) pairs.push(`by=${nodeValue(last.by, last.byPort)}`);
      if (last.proto !== undefined) pairs.push(`proto=${last.proto}`);
      if (last.host !== undefined) pairs.push(`host=${/^[\w.-]+$/.test(last.host) ? last.host : `"${last.host}"`}`);
    }
    elements.push(pairs.join(';'));
  }
  return elements.join(', ');
}

function node(ip: number): string {
  return ip === XFF_UNKNOWN ? 'unknown' : formatIpv4(ip);
}

function nodeValue(ip: number, port: number | undefined): string {
  return port === undefined ? node(ip) : `"${node(ip)}:${port}"`;
}
