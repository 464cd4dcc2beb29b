import { z } from './zod';

// A run lasts at most an hour, and every time a scenario sets fits in one (docs/limits.md#times).
export const MAX_RUN_S = 3600;
export const MAX_RUN_MS = MAX_RUN_S * 1000;
// The engine's clock counts whole microseconds, so a time that must be positive is at least one (docs/limits.md#times).
export const TICK_MS = 0.001;
// What one pod or machine may send or serve per second, at least one event in a run (docs/limits.md#rates).
export const MIN_RATE = 0.001;
export const MAX_POD_RATE = 10_000;

// Kubernetes IsDNS1123Label: lower-case alphanumerics and '-', alphanumeric at both ends, at most 63 characters.
const DNS1123_LABEL = /^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// Kubernetes IsDNS1035Label (required for Service names): like a DNS-1123 label but starting with a letter.
const DNS1035_LABEL = /^(?=.{1,63}$)[a-z]([-a-z0-9]*[a-z0-9])?$/;

/**
 * The error for a value left out, worded by the schema that needs it. issuesFromZod shows messages that start with
 * "required" as they are, and words zod's own.
 */
export function requiredFor(what: string): { error: (issue: { input: unknown }) => string | undefined } {
  return { error: (issue) => (issue.input === undefined ? `required for ${what}` : undefined) };
}

/** A DNS-1123 label (a name most Kubernetes objects take); `missing` words the error when it is left out. */
export function dnsLabelOf(missing?: string) {
  return z.string(missing === undefined ? undefined : requiredFor(missing)).regex(DNS1123_LABEL, {
    error: 'must be a DNS-1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit, at most 63 characters',
  });
}

export const dnsLabel = dnsLabelOf();

export const serviceName = z.string().regex(DNS1035_LABEL, {
  error: 'must be a DNS-1035 label: lower-case letters, digits and "-", starting with a letter, at most 63 characters',
});

/**
 * A record keyed by names the scenario gives (deployments, Services, fixes, DNS records), parsed into an object with no
 * prototype: looking up a name such as `constructor` or `toString` finds only what the file wrote.
 */
export function namedRecord<K extends z.core.$ZodRecordKey, V extends z.core.SomeType>(key: K, value: V) {
  return z.record(key, value).overwrite((entries) => Object.assign(noNames(), entries));
}

/** The empty value of a namedRecord, for its default: `.default(noNames)`. */
export function noNames<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

export const ipv4 = z.ipv4({ error: 'not an IPv4 address' });
export const cidrv4 = z.cidrv4({ error: 'not an IPv4 CIDR block (like 10.244.1.0/24)' });
export const port = z.number().int().min(1).max(65535);

// A label key: an optional DNS subdomain prefix and "/", then a name of at most 63 alphanumerics, "-", "_" and ".",
// alphanumeric at both ends; a value is such a name or empty (Kubernetes IsQualifiedName, IsValidLabelValue).
const LABEL_NAME = '(?=[^/]{1,63}$)[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?';
export const labelKey = z.string().regex(new RegExp(`^((?=.{1,253}/)[a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?${LABEL_NAME}$`), {
  error: 'must be a label key like rack or topology.kubernetes.io/zone: an optional DNS prefix and "/", then at most 63 letters, digits, "-", "_" or "."',
});
export const labelValue = z.string().regex(new RegExp(`^(${LABEL_NAME})?$`), {
  error: 'must be a label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit',
});

export const hostname = z.string().regex(/^(?=.{1,253}$)([a-z0-9]([-a-z0-9]*[a-z0-9])?\.)*[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, {
  error: 'must be a lower-case DNS name like metric.example.com',
});
