import type { Registration } from './zookeeper';

/** What one listing of a service's children has that another lacks, and what both have. */
export interface ListingVisitor {
  removed?(r: Registration): void;
  kept?(r: Registration): void;
  added?(r: Registration): void;
}

/** Walks two listings, both in ZooKeeper's listing order, in one pass. */
export function diffListings(before: readonly Registration[], after: readonly Registration[], visit: ListingVisitor): void {
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    const a = before[i];
    const b = after[j];
    if (a === b) {
      visit.kept?.(a!);
      i++;
      j++;
    } else if (b === undefined || (a !== undefined && precedes(a, b))) {
      visit.removed?.(a!);
      i++;
    } else {
      visit.added?.(b);
      j++;
    }
  }
}

/** Listing order: by order, then by name for the rare equal hashes. */
export function precedes(a: Registration, b: Registration): boolean {
  return a.order < b.order || (a.order === b.order && a.name < b.name);
}
