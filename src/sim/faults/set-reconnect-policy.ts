import type { GrpcClientSettings } from '../apps/grpc-client';
import { defineFault } from './fault';
import { rollOutClientSettings } from './targets';

export const setReconnectPolicy = defineFault({
  id: 'set-reconnect-policy',
  label: 'Set reconnect policy',
  icon: '↻',
  description:
    'Changes how a gRPC client deployment redials (gRPC’s exponential backoff, or a fixed interval) and rolls it out; each new pod’s channels reconnect the new way.',
  targets: ['deployment'],
  params: [
    { name: 'reconnect', label: 'Reconnect', kind: 'choice', default: 'backoff', choices: ['backoff', 'fixed'] },
    // The incident's custom 300 ms interval (the default of params.<deployment>.reconnectIntervalMs).
    { name: 'reconnectIntervalMs', label: 'Fixed interval', kind: 'number', default: 300, min: 1, max: 600_000, unit: 'ms' },
  ],
  apply(world, _kind, name, params, cause) {
    const reconnect = params.reconnect;
    rollOutClientSettings(world, name, { reconnect, reconnectIntervalMs: params.reconnectIntervalMs }, cause);
  },
});
