import { defineFault } from './fault';
import { loadBalancerNamed } from './targets';

export const setForwardedHeader = defineFault({
  id: 'set-forwarded-header',
  label: 'Set X-Forwarded-For',
  icon: '⇢',
  description:
    "Changes what a load balancer's HTTP profile does to X-Forwarded-For: pass on what the client sent, append the client's address (Insert X-Forwarded-For), or reset the header to the client's address alone.",
  targets: ['lb'],
  params: [{ name: 'mode', label: 'Header', kind: 'choice', default: 'append', choices: ['preserve', 'append', 'replace'] }],
  apply(world, _kind, name, params, cause) {
    const hop = loadBalancerNamed(world, name);
    hop.xff = params.mode;
    world.ctx.note('warn', hop.entity, 'lb.xff.changed', `X-Forwarded-For: ${params.mode}`, { cause });
  },
});
