import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/sim/context';
import { EphemeralPorts } from '../../src/sim/net/ephemeral-ports';
import { Udp, UdpStack, type DatagramOwner } from '../../src/sim/net/udp';

describe('UDP stack ports', () => {
  it('binds, unbinds, hands out ephemeral ports and delivers exactly as a Map of bound ports', () => {
    // Few ports, so unbinding hits bound ones; many share their low bits and so collide in the stack's table, and
    // those ending in ones wrap around its end.
    const pool = [1, 2, 7, 8, 9, 53, 126, 127, 128, 254, 255, 256, 383, 384, 511, 1023, 32767, 32768, 32769, 32770, 32775, 32783];
    const port = fc.constantFrom(...pool);
    const watched = [...pool, ...Array.from({ length: 40 }, (_, i) => 32768 + i)];
    const op = fc.oneof(
      fc.record({ kind: fc.constant('bind' as const), port }),
      fc.record({ kind: fc.constant('ephemeral' as const), port: fc.constant(0) }),
      fc.record({ kind: fc.constant('unbind' as const), port }),
      fc.record({ kind: fc.constant('receive' as const), port }),
      fc.record({ kind: fc.constant('unbindAll' as const), port: fc.constant(0) }),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 200 }), (ops) => {
        const stack = new UdpStack(new Udp(createContext(1)), 1, 0);
        const bound = new Map<number, number>();
        const ephemeral = new EphemeralPorts();
        const heard: number[] = [];
        const owner = (n: number): DatagramOwner => ({ onDatagram: () => heard.push(n) });
        ops.forEach((o, n) => {
          if (o.kind === 'bind') {
            if (bound.has(o.port)) expect(() => stack.bind(o.port, owner(n))).toThrow();
            else {
              stack.bind(o.port, owner(n));
              bound.set(o.port, n);
            }
          } else if (o.kind === 'ephemeral') {
            const expected = ephemeral.next(bound);
            expect(stack.bindEphemeral(owner(n))).toBe(expected);
            bound.set(expected, n);
          } else if (o.kind === 'unbind') {
            stack.unbind(o.port);
            bound.delete(o.port);
          } else if (o.kind === 'unbindAll') {
            stack.unbindAll();
            bound.clear();
          } else {
            heard.length = 0;
            stack.receive(2, 53, 1, o.port, 7);
            expect(heard).toEqual(bound.has(o.port) ? [bound.get(o.port)] : []);
          }
          for (const p of watched) expect(stack.isBound(p)).toBe(bound.has(p));
        });
      }),
      { numRuns: 300 },
    );
  });

  it('delivers to the owner bound to the port', () => {
    const stack = new UdpStack(new Udp(createContext(1)), 1, 0);
    const got: number[] = [];
    const ports = Array.from({ length: 100 }, (_, i) => stack.bindEphemeral({ onDatagram: () => got.push(i) }));
    for (let i = 0; i < 100; i += 2) stack.unbind(ports[i]!);
    for (let i = 0; i < 100; i++) stack.receive(2, 53, 1, ports[i]!, 0);
    expect(got).toEqual(Array.from({ length: 50 }, (_, i) => 2 * i + 1));
  });
});
