import { describe, expect, it } from 'vitest';
import { formatPerSecond, formatRate } from '../../src/ui/components/format';

describe('rates as people read them', () => {
  it('writes thousands separators and keeps precision for small rates', () => {
    expect(formatRate(39_872)).toBe('39,872');
    expect(formatRate(1_980_000.4)).toBe('1,980,000');
    expect(formatRate(12.34)).toBe('12.3');
    expect(formatRate(0.25)).toBe('0.25');
    expect(formatRate(0)).toBe('0');
    expect(formatRate(Number.NaN)).toBe('—');
  });

  it('writes a rate per second in full, or compact where space is short', () => {
    expect(formatPerSecond(39_872)).toBe('39,872/s');
    expect(formatPerSecond(39_872, true)).toBe('39.9K/s');
    expect(formatPerSecond(450.5, true)).toBe('451/s');
  });
});
