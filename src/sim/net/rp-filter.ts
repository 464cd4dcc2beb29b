import type { Route } from './route-table';

/** net.ipv4.conf.*.rp_filter: 0 off, 1 strict, 2 loose (RFC 3704; kernel Documentation/networking/ip-sysctl.rst). */
export type RpFilterMode = 0 | 1 | 2;

/**
 * The kernel uses the larger of conf/all and conf/<dev> (IN_DEV_MAXCONF,
 * docs/sources/linux-routing-rp-filter.md#effective-value).
 */
export function effectiveRpFilter(all: RpFilterMode, dev: RpFilterMode): RpFilterMode {
  return Math.max(all, dev) as RpFilterMode;
}

export interface SourceCheck {
  /** The packet's source address. */
  src: number;
  /** Interface the packet arrived on. */
  dev: string;
  /** Whether that interface has any IPv4 address. */
  devHasAddress: boolean;
  mode: RpFilterMode;
  /** The route back to the source, as the reverse FIB lookup finds it; undefined when there is none. */
  reverse: Route | undefined;
  /** Whether the source is one of this host's own addresses. */
  srcIsLocal: boolean;
  /** net.ipv4.conf.*.accept_local. */
  acceptLocal?: boolean;
}

/** accept, or why the kernel refuses: `martian` is -EXDEV (counted and logged as a martian), `invalid` is -EINVAL. */
export type SourceVerdict = 'accept' | 'martian' | 'invalid';

/**
 * Linux's source validation for a received packet (`__fib_validate_source()` in net/ipv4/fib_frontend.c,
 * docs/sources/linux-routing-rp-filter.md#source-validation). On an interface with no IPv4 address, a reverse route
 * that leaves by another interface falls through to the last resort, which drops whenever filtering is on — even in
 * loose mode.
 */
export function validateSource(check: SourceCheck): SourceVerdict {
  return checkSource(check.mode, check.dev, check.devHasAddress, check.reverse, check.srcIsLocal, check.acceptLocal ?? false);
}

/** The same decision with plain arguments, for the packet path, which must not build an object per packet. */
export function checkSource(mode: RpFilterMode, dev: string, devHasAddress: boolean, reverse: Route | undefined, srcIsLocal: boolean, acceptLocal: boolean): SourceVerdict {
  if (mode === 0) return srcIsLocal && !acceptLocal ? 'invalid' : 'accept';
  if (!reverse) return lastResort(mode);
  if (reverse.type === 'local' ? !acceptLocal : reverse.type !== 'unicast') return 'invalid';
  if (reverse.dev === dev) return 'accept';
  if (!devHasAddress) return lastResort(mode);
  if (mode === 1) return 'martian';
  return 'accept';
}

function lastResort(mode: RpFilterMode): SourceVerdict {
  return mode !== 0 ? 'martian' : 'accept';
}
