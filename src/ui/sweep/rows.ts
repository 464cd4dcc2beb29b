import type { VariantImpact } from '../../sim';

/** `power-off-node on node/node-a + setting fixed-reconnect on deployment/web`: what a variant tries, as the table names it. */
export function variantName(variant: Pick<VariantImpact, 'faults' | 'setting'>): string {
  const parts = variant.faults.map((f) => `${f.fault} on ${f.target}`);
  if (variant.setting) parts.push(`setting ${variant.setting.id} on ${variant.setting.target}`);
  return parts.join(' + ');
}
