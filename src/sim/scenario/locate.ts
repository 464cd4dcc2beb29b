import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { readYaml, withoutBom } from './parse-text';
import type { PathSegment } from './path';

/** Where a path is in scenario text. */
export interface TextPlace {
  /** Offset of the key that names the deepest part of the path found (of the item, for a list item), 0 for none. */
  offset: number;
  /** 1-based, of `offset`. */
  line: number;
  column: number;
  /** How many of the path's segments were found: fewer than its length when the text lacks the rest. */
  found: number;
}

/**
 * A function from a path (as the loader names it in `topology.nodes[0].ip: …`) to where it is in `text`: the key or
 * list item of the deepest part of the path the text has, so a missing key points at the mapping it belongs in. The
 * text is parsed once, for any number of paths; YAML errors elsewhere in it do not stop the parts that did parse.
 */
export function pathLocator(text: string): (path: readonly PathSegment[]) => TextPlace {
  const source = withoutBom(text);
  const shift = text.length - source.length;
  const read = readYaml(source);
  // Text the loader refuses whole (too long, nested too deep) has its problems at its start.
  if (!read.ok) return () => ({ offset: 0, line: 1, column: 1, found: 0 });
  const { doc, lines } = read;
  const root = doc.contents;
  const rootStart = root?.range?.[0] ?? 0;
  return (path) => {
    let node: unknown = root;
    let at = rootStart;
    let found = 0;
    for (const segment of path) {
      const next = child(node, segment);
      if (!next) break;
      at = next.at;
      node = next.node;
      found++;
    }
    const { line, col } = lines.linePos(at);
    return { offset: at + shift, line, column: col + (line === 1 ? shift : 0), found };
  };
}

function child(node: unknown, segment: PathSegment): { node: unknown; at: number } | undefined {
  if (isMap(node)) {
    // `a.2` and `a["2"]` name the same key, as samePath has it.
    const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
    const start = pair && (pair.key as Node).range?.[0];
    return start === undefined ? undefined : { node: pair!.value, at: start };
  }
  if (isSeq(node) && /^\d+$/.test(String(segment))) {
    const item = node.items[Number(segment)] as Node | null | undefined;
    const start = item?.range?.[0];
    return start === undefined ? undefined : { node: item, at: start };
  }
  return undefined;
}
