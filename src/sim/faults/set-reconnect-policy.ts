import { RECONNECT_INTERVAL_MS } from '../apps/grpc/backoff';
import { defineFault } from './fault';
import { rollOutClientSettings } from './targets';

export const setReconnectPolicy = defineFault({
  id: 'set-reconnect-policy',
  label: 'Set reconnect policy',
  icon: '↻',
  description: 'Changes how a gRPC client deployment redials (gRPC’s exponential backoff, or a fixed interval) and rolls it out; each new pod’s channels reconnect the new way.',
  targets: ['deployment'],
  params: [
    { name: 'reconnect', label: 'Reconnect', kind: 'choice', default: 'backoff', choices: ['backoff', 'fixed'] },
    {
      name: 'reconnectIntervalMs',
      label: 'Fixed interval',
      kind: 'number',
      default: RECONNECT_INTERVAL_MS.default,
      min: RECONNECT_INTERVAL_MS.min,
      max: RECONNECT_INTERVAL_MS.max,
      unit: 'ms',
    },
  ],
  apply(world, _kind, name, params, cause) {
    const reconnect = params.reconnect;
    rollOutClientSettings(world, name, { reconnect, reconnectIntervalMs: params.reconnectIntervalMs }, cause);
  },
});
