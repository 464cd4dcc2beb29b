import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { WhyChain } from '../sim';

/** The "why" someone asked for by clicking a symptom: what they clicked, and the chain the simulation built for it. */
export interface WhyState {
  asked: { kind: string; entity?: string } | null;
  /** Undefined while the worker works on it; null when nothing of the kind was recorded there. */
  chain: WhyChain | null | undefined;
}

export const whyStore = createStore<WhyState>(() => ({ asked: null, chain: undefined }));

export function useWhy<T>(selector: (s: WhyState) => T): T {
  return useStore(whyStore, selector);
}

export function closeWhy(): void {
  whyStore.setState({ asked: null, chain: undefined });
}
