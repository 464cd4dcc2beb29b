import { describe, expect, it } from 'vitest';
import { echo, oneLine } from '../../src/sim';
import { faultSets, parseArgs, UsageError } from '../../src/cli/args';

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
      faults: [],
      out: 'r.json',
      pcapEvery: 1,
    });
  });

  it('takes exports: a pcap file with a sampling step, and CSV', () => {
    const args = parseArgs(['demo', '--pcap', 'run.pcap', '--pcap-every=10', '--csv', 'run.csv']);
    expect([args.pcap, args.pcapEvery, args.csv]).toEqual(['run.pcap', 10, 'run.csv']);
    expect(() => parseArgs(['demo', '--pcap', 'x.pcap', '--pcap-every', '0'])).toThrow('--pcap-every: expected a whole number from 1, got "0"');
    expect(() => parseArgs(['demo', '--pcap-every', '5'])).toThrow('--pcap-every: only with --pcap FILE');
  });

  it('turns --fault specs into timeline entries after the scenario’s own', () => {
    const args = parseArgs(['demo', '--fault', '20:scale-deployment:deployment/web:replicas=5', '--fault=3.5:change-ecmp-hash:router/tor:mode=resilient,seed=7']);
    expect(args.faults).toHaveLength(2);
    expect(faultSets(args.faults, 1)).toEqual([
      'timeline[1].at=20',
      'timeline[1].fault=scale-deployment',
      'timeline[1].target=deployment/web',
      'timeline[1].params.replicas=5',
      'timeline[2].at=3.5',
      'timeline[2].fault=change-ecmp-hash',
      'timeline[2].target=router/tor',
      'timeline[2].params.mode=resilient',
      'timeline[2].params.seed=7',
    ]);
  });

  it('accepts --list without a scenario', () => {
    expect(parseArgs(['--list']).list).toBe(true);
  });

  it.each([
    [['demo', '--seed', '-1'], '--seed: expected a whole number from 0 to 4294967295, got "-1"'],
    [['demo', '--seed', '1.5'], '--seed: expected a whole number from 0 to 4294967295, got "1.5"'],
    [['demo', '--until', '0'], '--until: expected a number of seconds above 0, got "0"'],
    [['demo', '--set', 'novalue'], '--set: expected path=value'],
    [['demo', '--fault', 'scale-deployment:deployment/web'], '--fault: expected AT:FAULT:KIND/NAME'],
    [['demo', '--fault', '20:scale-deployment:deployment/web:replicas'], '--fault: expected AT:FAULT:KIND/NAME'],
    [['demo', '--fix'], '--fix: needs a value'],
    [['demo', '--bogus'], '--bogus: unknown option'],
    [[], 'missing scenario'],
    [['a', 'b'], 'only one scenario'],
  ])('rejects %j naming the flag', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(UsageError);
    expect(() => parseArgs(argv)).toThrow(message);
  });

  // One reader for every number: plain decimals, so hex, exponents, signs and spaces mean the same everywhere.
  const NUMBER_FLAGS: [string, string[], string][] = [
    ['--seed', [], '--seed: expected a whole number from 0 to 4294967295, got'],
    ['--until', [], '--until: expected a number of seconds above 0, got'],
    ['--pcap-every', ['--pcap', 'x.pcap'], '--pcap-every: expected a whole number from 1, got'],
  ];
  it.each(
    NUMBER_FLAGS.flatMap(([flag, extra, message]) => ['0x10', '1e3', '+5', ' 5', '5 ', 'Infinity', 'NaN', '', '.5', '1'.repeat(400)].map((text) => [flag, text, extra, message] as const)),
  )('reads %s %j as every number flag does', (flag, text, extra, message) => {
    expect(() => parseArgs(['demo', ...extra, `${flag}=${text}`])).toThrow(`${message} ${echo(text)}`);
  });

  it('reads the time of a --fault by the same rule', () => {
    expect(() => parseArgs(['demo', '--fault', '0x10:delete-pod:pod/web-0'])).toThrow('--fault 0x10:delete-pod:pod/web-0: AT: expected a number of seconds from 0, got "0x10"');
    expect(() => parseArgs(['demo', '--fault', '1e1:delete-pod:pod/web-0'])).toThrow('AT: expected a number of seconds from 0, got "1e1"');
    expect(parseArgs(['demo', '--until', '16', '--seed', '16', '--fault', '2.5:delete-pod:pod/web-0'])).toMatchObject({ until: 16, seed: 16, faults: ['2.5:delete-pod:pod/web-0'] });
  });

  it('echoes a value on one line, cut when long', () => {
    expect(echo('a\nb\u0085')).toBe('"a\\u000ab\\u0085"');
    expect(oneLine('say "hi"\u001b[2J\u007f')).toBe('say "hi"\\u001b[2J\\u007f');
    expect(oneLine('x'.repeat(5000))).toMatch(/^x+… \(5,000 characters\)$/);
    expect(oneLine('x'.repeat(5000))).toHaveLength(80);
    expect(() => parseArgs(['demo', '--set', 'y'.repeat(100_000)])).toThrow(`--set: expected path=value, got "${'y'.repeat(80)}…" (100,000 characters)`);
    expect(() => parseArgs(['demo', '--out', ''])).toThrow('--out: needs a file path, got ""');
  });
});
