/**
 * Canonical JSON and a 64-bit FNV-1a digest of it, so equal run results give equal digests in every
 * JavaScript engine regardless of object key order or last-bit float noise.
 */

/**
 * JSON with object keys sorted (by UTF-16 code units), arrays and typed arrays in order, integers as
 * JavaScript prints them, other finite numbers rounded to 9 significant digits, -0 as 0, and NaN and
 * ±Infinity as the strings "NaN", "Infinity", "-Infinity". As in JSON, undefined and functions are
 * left out of objects and become null in arrays, and toJSON() is honoured. Throws on cycles, bigints,
 * symbols, Maps and Sets.
 */
export function stableStringify(value: unknown): string {
  const out: string[] = [];
  write(value, out, new Set());
  return out.join('');
}

export function canonicalNumber(n: number): string {
  if (Number.isNaN(n)) return '"NaN"';
  if (n === Infinity) return '"Infinity"';
  if (n === -Infinity) return '"-Infinity"';
  // toPrecision and String are exactly specified by ECMA-262, so this is engine-independent.
  const v = Number.isInteger(n) ? n : Number(n.toPrecision(9));
  return v === 0 ? '0' : String(v);
}

function write(value: unknown, out: string[], stack: Set<object>): void {
  switch (typeof value) {
    case 'number':
      out.push(canonicalNumber(value));
      return;
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'undefined':
    case 'function':
      out.push('null');
      return;
    case 'bigint':
    case 'symbol':
      throw new TypeError(`stableStringify cannot encode a ${typeof value}`);
  }
  if (value === null) {
    out.push('null');
    return;
  }
  const obj = value as object;
  if (stack.has(obj)) throw new TypeError('stableStringify cannot encode a cycle');
  if (obj instanceof Map || obj instanceof Set) throw new TypeError('stableStringify cannot encode a Map or Set');
  const toJSON = (obj as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    write(toJSON.call(obj), out, stack);
    return;
  }
  stack.add(obj);
  if (Array.isArray(obj) || (ArrayBuffer.isView(obj) && !(obj instanceof DataView))) {
    const items = obj as ArrayLike<unknown>;
    out.push('[');
    for (let i = 0; i < items.length; i++) {
      if (i > 0) out.push(',');
      write(items[i], out, stack);
    }
    out.push(']');
  } else {
    const record = obj as Record<string, unknown>;
    out.push('{');
    let first = true;
    for (const key of Object.keys(record).sort()) {
      const v = record[key];
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(key), ':');
      write(v, out, stack);
    }
    out.push('}');
  }
  stack.delete(obj);
}

const FNV_PRIME_LOW = 0x1b3;

/**
 * 64-bit FNV-1a (Fowler/Noll/Vo; offset basis 0xcbf29ce484222325, prime 2^40 + 0x1b3) over the UTF-8
 * bytes of text, as 16 lower-case hex digits. The state is four 16-bit limbs so every product stays
 * exact in a double.
 */
export function fnv1a64(text: string): string {
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  const mix = (byte: number): void => {
    h0 ^= byte;
    // h * prime = h * 0x1b3 + (h << 40); bit 40 is bit 8 of limb 2.
    const t0 = h0 * FNV_PRIME_LOW;
    const t1 = h1 * FNV_PRIME_LOW + (t0 >>> 16);
    const t2 = h2 * FNV_PRIME_LOW + (h0 << 8) + (t1 >>> 16);
    const t3 = h3 * FNV_PRIME_LOW + (h1 << 8) + (t2 >>> 16);
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  };
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
      } else {
        // A lone surrogate encodes as U+FFFD, as TextEncoder does.
        c = 0xfffd;
      }
    }
    if (c < 0x80) {
      mix(c);
    } else if (c < 0x800) {
      mix(0xc0 | (c >> 6));
      mix(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
      mix(0xe0 | (c >> 12));
      mix(0x80 | ((c >> 6) & 0x3f));
      mix(0x80 | (c & 0x3f));
    } else {
      mix(0xf0 | (c >> 18));
      mix(0x80 | ((c >> 12) & 0x3f));
      mix(0x80 | ((c >> 6) & 0x3f));
      mix(0x80 | (c & 0x3f));
    }
  }
  return [h3, h2, h1, h0].map((limb) => limb.toString(16).padStart(4, '0')).join('');
}

/** FNV-1a 64 of the canonical JSON of value. */
export function digest(value: unknown): string {
  return fnv1a64(stableStringify(value));
}
