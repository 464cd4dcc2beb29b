import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../src/cli/args';

describe('CLI arguments', () => {
  it('parses a full command line, repeated flags kept in order', () => {
    const args = parseArgs(['demo', '--seed', '7', '--until=30', '--set', 'params.client.reconnectMs=600', '--set=duration=90', '--fix', 'a', '--fix', 'b', '--out', 'r.json']);
    expect(args).toEqual({
      scenario: 'demo',
      list: false,
      help: false,
      seed: 7,
      until: 30,
      sets: ['params.client.reconnectMs=600', 'duration=90'],
      fixes: ['a', 'b'],
      out: 'r.json',
    });
  });

  it('accepts --list without a scenario', () => {
    expect(parseArgs(['--list']).list).toBe(true);
  });

  it.each([
    [['demo', '--seed', '-1'], '--seed: expected an integer'],
    [['demo', '--seed', '1.5'], '--seed: expected an integer'],
    [['demo', '--until', '0'], '--until: expected a positive number'],
    [['demo', '--set', 'novalue'], '--set: expected path=value'],
    [['demo', '--fix'], '--fix: needs a value'],
    [['demo', '--bogus'], '--bogus: unknown option'],
    [[], 'missing scenario'],
    [['a', 'b'], 'only one scenario'],
  ])('rejects %j naming the flag', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(UsageError);
    expect(() => parseArgs(argv)).toThrow(message);
  });
});
