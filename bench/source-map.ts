/** A minimal reader for source map v3 files: enough to turn a position in a built chunk into a source file and line. */

export interface OriginalPosition {
  source: string;
  /** 0-based, like the generated position asked about. */
  line: number;
  column: number;
  name?: string;
}

interface RawSourceMap {
  version: number;
  sources: string[];
  names?: string[];
  mappings: string;
  sourceRoot?: string;
  sourcesContent?: (string | null)[];
}

/** One decoded segment: generated column, source index, source line, source column, name index (-1 when absent). */
type Segment = [number, number, number, number, number];

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...BASE64].map((c, i) => [c, i]));

function decodeMappings(mappings: string): Segment[][] {
  const lines: Segment[][] = [];
  let source = 0;
  let sourceLine = 0;
  let sourceColumn = 0;
  let name = 0;
  for (const lineText of mappings.split(';')) {
    const segments: Segment[] = [];
    let column = 0;
    for (const text of lineText.split(',')) {
      if (text === '') continue;
      const values: number[] = [];
      let value = 0;
      let shift = 0;
      for (const c of text) {
        const digit = DIGIT.get(c);
        if (digit === undefined) throw new Error(`source map: bad base64 digit ${JSON.stringify(c)}`);
        value += (digit & 31) << shift;
        if (digit & 32) {
          shift += 5;
        } else {
          values.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += values[0] ?? 0;
      if (values.length >= 4) {
        source += values[1]!;
        sourceLine += values[2]!;
        sourceColumn += values[3]!;
        if (values.length >= 5) name += values[4]!;
        segments.push([column, source, sourceLine, sourceColumn, values.length >= 5 ? name : -1]);
      }
    }
    lines.push(segments);
  }
  return lines;
}

export class SourceMap {
  private readonly lines: Segment[][];
  private readonly map: RawSourceMap;

  constructor(json: string) {
    this.map = JSON.parse(json) as RawSourceMap;
    if (this.map.version !== 3) throw new Error(`source map: version ${this.map.version} is not supported`);
    this.lines = decodeMappings(this.map.mappings);
  }

  /** The mapping at or just before a 0-based generated line and column; undefined where nothing maps. */
  lookup(line: number, column: number): OriginalPosition | undefined {
    const segments = this.lines[line];
    if (!segments || segments.length === 0) return undefined;
    let lo = 0;
    let hi = segments.length - 1;
    if (segments[0]![0] > column) return undefined;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (segments[mid]![0] <= column) lo = mid;
      else hi = mid - 1;
    }
    const [, source, sourceLine, sourceColumn, name] = segments[lo]!;
    const out: OriginalPosition = { source: this.map.sources[source] ?? '?', line: sourceLine, column: sourceColumn };
    if (name >= 0 && this.map.names?.[name] !== undefined) out.name = this.map.names[name];
    return out;
  }

  /** The text of one original source line (0-based) when the map embeds its sources. */
  sourceLine(source: string, line: number): string | undefined {
    const index = this.map.sources.indexOf(source);
    return this.map.sourcesContent?.[index]?.split('\n')[line];
  }
}
