/** The charts a scenario gets when it names none; apart from the schema, so the UI can fall back to them without zod. */
export const DEFAULT_CHARTS = [
  {
    title: 'Requests per second',
    kind: 'rate' as const,
    unit: 'requests / s',
    series: [
      { metric: 'requests.ok', label: 'ok' },
      { metric: 'requests.failed', label: 'failed' },
    ],
  },
];
