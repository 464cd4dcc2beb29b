import { compressToEncodedURIComponent } from 'lz-string';
import { describe, expect, it } from 'vitest';
import { embedQuery, embedSizeProblem, iframeSnippet, shareQuery } from '../../src/state/share-link';
import { parseUrlParams, type CompareLink } from '../../src/state/url-params';
import type { TimedFault } from '../../src/worker/protocol';

const faults: TimedFault[] = [
  { at: 12_500_000, fault: { fault: 'delete-pod', target: 'pod/web-1', params: { gracePeriodSeconds: 0 } } },
  { at: 30_000_000, fault: { fault: 'scale-deployment', target: 'deployment/web', params: { replicas: 5 } } },
];

describe('share links', () => {
  it('carry a shipped scenario, seed, fixes, applied faults and time, and read back the same', () => {
    const query = shareQuery({ scenario: { file: 'demo.yaml' }, seed: 7, fixes: ['a', 'b'], faults, t: 42_250_000 });
    const params = parseUrlParams(`?${query}`);
    expect(params.errors).toEqual([]);
    expect(params).toMatchObject({ scenario: 'demo.yaml', seed: 7, fixes: ['a', 'b'], faults, t: 42.25 });
    expect(params.inline).toBeUndefined();
  });

  it('carry what was inspected and the timeline range', () => {
    const query = shareQuery({ scenario: { file: 'demo.yaml' }, seed: 7, fixes: [], faults: [], t: 0, view: { selected: 'zookeeper/ensemble', zoom: [12.5, 40] } });
    expect(parseUrlParams(`?${query}`)).toMatchObject({ select: 'zookeeper/ensemble', zoom: [12.5, 40], errors: [] });
  });

  it("carry a compare's run B: the fix it toggles, or the second it branches at with the fix rolled out", () => {
    const query = (compare: CompareLink) => shareQuery({ scenario: { file: 'its-not-dns.yaml' }, seed: 7, fixes: [], faults: [], t: 90e6, view: { compare } });
    expect(parseUrlParams(`?${query({ fix: 'pick-first' })}`)).toMatchObject({ compare: { fix: 'pick-first' }, errors: [] });
    expect(parseUrlParams(`?${query({ fix: 'default-backoff', branchS: 60.5 })}`)).toMatchObject({ compare: { fix: 'default-backoff', branchS: 60.5 }, errors: [] });
    const fault = { fault: 'delete-pod', target: 'pod/web-1', params: { gracePeriodSeconds: 0 } };
    expect(parseUrlParams(`?${query({ fault, branchS: 5 })}`)).toMatchObject({ compare: { fault, branchS: 5 }, errors: [] });
  });

  it('carry the speed the run played at, and leave the default one out', () => {
    const at = (speed: 'max' | 0.5 | 1) => shareQuery({ scenario: { file: 'demo.yaml' }, seed: 7, fixes: [], faults: [], t: 0, view: { speed } });
    expect(parseUrlParams(`?${at('max')}`)).toMatchObject({ speed: 'max', errors: [] });
    expect(parseUrlParams(`?${at(0.5)}`)).toMatchObject({ speed: 0.5, errors: [] });
    expect(at(1)).not.toContain('speed');
  });

  it('carry a scenario opened from disk inside the link', () => {
    const text = 'version: 1\nid: mine\n# a comment with + and & and = and spaces\n';
    const params = parseUrlParams(`?${shareQuery({ scenario: { name: 'mine.yaml', text }, seed: 1, fixes: [], faults: [], t: 0 })}`);
    expect(params.errors).toEqual([]);
    expect(params.inline).toEqual({ name: 'mine.yaml', text });
    expect(params.faults).toBeUndefined();
  });

  it('carry faults added to the timeline (a sweep row) and read them back the same, params included', () => {
    const timeline = [
      { at: 15, fault: 'crash-loop', target: 'deployment/web' },
      { at: 15, fault: 'scale-deployment', target: 'deployment/web', params: { replicas: 5 } },
    ];
    const query = shareQuery({ scenario: { file: 'demo.yaml' }, seed: 4, fixes: [], faults: [], timeline, t: 60_000_000 });
    const params = parseUrlParams(`?${query}`);
    expect(params.errors).toEqual([]);
    expect(params).toMatchObject({ scenario: 'demo.yaml', seed: 4, timeline, t: 60 });
    expect(shareQuery({ scenario: { file: 'demo.yaml' }, seed: 4, fixes: [], faults: [], timeline: [], t: 0 })).not.toContain('timeline');
  });

  it("carry a risky setting's overrides (a sweep row) in order, and read them back the same", () => {
    const sets = ['topology.deployments.traefik.cpuLimit=0.5', 'params.cpu.kernel=expiring'];
    const query = shareQuery({ scenario: { file: 'ingress-loss.yaml' }, seed: 3, fixes: ['bfd'], faults: [], sets, t: 0 });
    expect(parseUrlParams(`?${query}`)).toMatchObject({ scenario: 'ingress-loss.yaml', fixes: ['bfd'], sets, errors: [] });
    expect(shareQuery({ scenario: { file: 'demo.yaml' }, seed: 4, fixes: [], faults: [], t: 0 })).not.toContain('set=');
  });

  it('keep the compressed alphabet intact even where a `+` was read as a space', () => {
    const packed = compressToEncodedURIComponent(JSON.stringify(faults));
    expect(packed).toContain('+');
    expect(parseUrlParams(`?faults=${packed}`).faults).toEqual(faults);
  });

  it.each([
    [
      'a cut fault list',
      `?scenario=demo.yaml&faults=${compressToEncodedURIComponent(JSON.stringify(faults)).slice(0, 20)}`,
      'faults: the list of applied faults in the link is damaged (the link may have been cut off)',
    ],
    ['a fault list that is not a list', `?faults=${compressToEncodedURIComponent('{"at":1}')}`, 'faults: the list of applied faults in the link is damaged (the link may have been cut off)'],
    [
      'a cut timeline',
      `?timeline=${compressToEncodedURIComponent('[{"at":15,"fault":"crash-loop","target":"deployment/web"}]').slice(0, 12)}`,
      'timeline: the list of faults the link adds to the timeline is damaged (the link may have been cut off)',
    ],
    ['a timeline that is not a list', `?timeline=${compressToEncodedURIComponent('{"at":1}')}`, 'timeline: expected a list of {at, fault, target, params?}'],
    [
      'a timeline entry before 0',
      `?timeline=${compressToEncodedURIComponent('[{"at":-1,"fault":"crash-loop","target":"deployment/web"}]')}`,
      'timeline[0].at: expected simulated seconds from 0, got -1',
    ],
    [
      'a timeline entry with no target',
      `?timeline=${compressToEncodedURIComponent('[{"at":15,"fault":"crash-loop","target":"deployment/web"},{"at":15,"fault":"delete-pod"}]')}`,
      'timeline[1].target: expected kind/name like "pod/web-1", got nothing',
    ],
    [
      'a timeline entry with a bad fault id',
      `?timeline=${compressToEncodedURIComponent('[{"at":1,"fault":"Crash Loop","target":"deployment/web"}]')}`,
      'timeline[0].fault: expected a fault id like "power-off-node", got "Crash Loop"',
    ],
    [
      'a timeline entry with a listed param',
      `?timeline=${compressToEncodedURIComponent('[{"at":1,"fault":"scale-deployment","target":"deployment/web","params":{"replicas":[5]}}]')}`,
      'timeline[0].params.replicas: expected a number, text or true/false',
    ],
    ['an override with no value', '?set=params.cpu.kernel=expiring&set=replicas', 'set[1]: expected path=value like "params.client.reconnectMs=600", got "replicas"'],
    ['a damaged scenario', '?src=%%%', 'src: the scenario in the link is damaged (the link may have been cut off)'],
    ['two scenarios', `?scenario=demo.yaml&src=${compressToEncodedURIComponent('x')}`, 'src: a link carries either a shipped scenario or its own, not both'],
    ['a bad file name', `?name=../x&src=${compressToEncodedURIComponent('x')}`, 'name: expected a file name like "mine.yaml", got "../x"'],
    ['a negative time', '?t=-3', 't: expected simulated seconds from 0, got "-3"'],
    ['a chapter 0', '?chapter=0', 'chapter: expected a chapter number from 1, got "0"'],
    ['a chapter and a time', '?t=3&chapter=2', 'chapter: a link starts at a chapter or at t, not both'],
    ['an embed flag that is neither', '?embed=yes', 'embed: expected 1 or 0'],
    ['a selection that is no entity', '?select=web-1', 'select: expected an entity like "pod/web-1", got "web-1"'],
    ['a backwards zoom', '?zoom=30,10', 'zoom: expected the timeline\'s range as "from,to" in seconds, from < to, got "30,10"'],
    ['a zoom with one end', '?zoom=30', 'zoom: expected the timeline\'s range as "from,to" in seconds, from < to, got "30"'],
    ['an empty compare', '?compare=', 'compare: expected a fix name of 1–80 characters, got an empty value'],
    ['a branch without a fix', '?branch=60', 'branch: a branch needs the fix it rolls out, as compare=, or the fault B takes, as bfault='],
    ['a branch before the start', '?compare=x&branch=-1', 'branch: expected the second run B parts from A at, 0 or more, got "-1"'],
    [
      'a fault for B without a moment',
      `?bfault=${compressToEncodedURIComponent('{"fault":"delete-pod","target":"pod/web-1"}')}`,
      'branch: expected the second run B parts from A at, 0 or more, got none',
    ],
    ['a fault for B and a fix', `?compare=x&bfault=${compressToEncodedURIComponent('{}')}&branch=1`, 'bfault: run B differs from A by a fix (compare=) or a fault (bfault=), not both'],
    ['a damaged fault for B', '?bfault=%%%&branch=1', 'bfault: the fault run B takes in the link is damaged (the link may have been cut off)'],
    [
      'a fault for B with no target',
      `?bfault=${compressToEncodedURIComponent('{"fault":"delete-pod"}')}&branch=1`,
      'bfault: the fault run B takes in the link expected the fault\'s target like "pod/web-1", got "none"',
    ],
    [
      'a fault for B with listed params',
      `?bfault=${compressToEncodedURIComponent('{"fault":"delete-pod","target":"pod/a","params":{"x":[1]}}')}&branch=1`,
      "bfault: the fault run B takes in the link expected the fault's params as names with numbers, strings or booleans",
    ],
  ])('name what is wrong with %s', (_, search, error) => {
    expect(parseUrlParams(search).errors).toEqual([error]);
  });

  it('for an embed start at a chapter instead of the moment, play on open if asked, and show the embed view', () => {
    const run = { scenario: { file: 'demo.yaml' }, seed: 7, fixes: ['a'], faults, t: 42_250_000 };
    const params = parseUrlParams(`?${embedQuery(run, { chapter: 2, autoplay: true })}`);
    expect(params.errors).toEqual([]);
    expect(params).toMatchObject({ scenario: 'demo.yaml', seed: 7, fixes: ['a'], faults, chapter: 2, autoplay: true, embed: true, present: false });
    expect(params.t).toBeUndefined();
    expect(parseUrlParams(`?${embedQuery(run, { autoplay: false })}`)).toMatchObject({ t: 42.25, autoplay: false, embed: true });
  });

  it('write an iframe whose attributes survive quotes and ampersands', () => {
    const html = iframeSnippet('https://wiki/x/?a=1&b="2"', { width: 800, height: 500 }, 'Netmortem: "quoted" <b>');
    expect(html).toBe(
      '<iframe src="https://wiki/x/?a=1&amp;b=&quot;2&quot;" width="800" height="500" title="Netmortem: &quot;quoted&quot; &lt;b>" loading="lazy" allow="fullscreen" style="border:0"></iframe>',
    );
  });

  it.each([
    ['800', '500', null],
    ['599', '500', 'width: at least 600 pixels, so the controls fit (got 599)'],
    ['800', '399', 'height: at least 400 pixels, so the controls fit (got 399)'],
    ['8e2', '500', 'width: expected a whole number of pixels, got "8e2"'],
    ['800', '', 'height: expected a whole number of pixels, got ""'],
    ['800', '9000', 'height: at most 4000 pixels (got 9000)'],
  ])('check an iframe of %s × %s', (width, height, problem) => {
    expect(embedSizeProblem(width, height)).toBe(problem);
  });
});
