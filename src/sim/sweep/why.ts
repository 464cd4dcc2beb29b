import type { RunReport, Sim, WhyChain } from '../api';
import { remedyFor, type Remedy } from './remedies';

/**
 * A chain of a variant's run that the unfaulted run lacks or has far less of; `baseline` is its count there. `remedy`:
 * what the project knows to do about its kind of fact in general, where it knows something.
 */
export interface RowWhy extends WhyChain {
  cause: WhyChain['cause'] & { baseline: number };
  remedy?: Pick<Remedy, 'text' | 'sources'>;
}

/** How many chains a row keeps, the biggest first. */
export const ROW_WHY_LIMIT = 3;
/** A chain the unfaulted run also has counts as the variant's when its symptom happened at least this many times as often. */
export const FAR_MORE = 2;

/**
 * The chains a run can tell: the report's main ones, and one for each drop reason of the run at each place packets
 * were dropped for it that no main chain starts from, so a fault whose drops no main chain covers still gets its why.
 */
export function whyCandidates(sim: Sim, report: RunReport): WhyChain[] {
  const chains = [...report.why];
  const sites = sim.topology().sites;
  for (const reason of Object.keys(report.drops).sort()) {
    for (const site of sites) {
      if (chains.some((c) => c.cause.kind === reason && c.cause.entity === site)) continue;
      const chain = sim.whyOf(reason, site);
      if (chain) chains.push(chain);
    }
  }
  return chains;
}

/**
 * The variant's chains whose symptom (the same recorded fact: kind and entity) the unfaulted run has not, or has
 * FAR_MORE times less of; the ones with the most occurrences beyond the unfaulted run first, one per kind (where it grew
 * most), at most `limit`.
 */
export function whyBeyond(baseline: readonly WhyChain[], variant: readonly WhyChain[], limit = ROW_WHY_LIMIT): RowWhy[] {
  const counted = (chain: WhyChain): number => baseline.find((b) => b.cause.kind === chain.cause.kind && b.cause.entity === chain.cause.entity)?.cause.count ?? 0;
  return variant
    .map((chain): RowWhy => ({ ...chain, cause: { ...chain.cause, baseline: counted(chain) } }))
    .filter((chain) => chain.cause.count > chain.cause.baseline && chain.cause.count >= FAR_MORE * chain.cause.baseline)
    .sort((a, b) => b.cause.count - b.cause.baseline - (a.cause.count - a.cause.baseline) || (a.symptom < b.symptom ? -1 : a.symptom > b.symptom ? 1 : 0))
    .filter((chain, i, all) => all.findIndex((c) => c.cause.kind === chain.cause.kind) === i)
    .slice(0, limit)
    .map((chain) => {
      const remedy = remedyFor(chain.cause);
      return remedy ? { ...chain, remedy: { text: remedy.text, sources: remedy.sources } } : chain;
    });
}
