import { Counter } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetricsRegistry } from './metrics';

describe('createMetricsRegistry', () => {
  it('gives each registry its own series with the service label', async () => {
    const a = createMetricsRegistry({ service: 'a', defaultMetrics: false });
    const b = createMetricsRegistry({ service: 'b', defaultMetrics: false });
    new Counter({ name: 'x_total', help: 'x', registers: [a] }).inc(3);
    new Counter({ name: 'x_total', help: 'x', registers: [b] }).inc();
    expect(await a.metrics()).toContain('x_total{service="a"} 3');
    expect(await b.metrics()).toContain('x_total{service="b"} 1');
  });

  it('collects default process metrics unless told not to', async () => {
    expect(await createMetricsRegistry({ service: 's' }).metrics()).toContain('process_cpu_user_seconds_total');
    expect(await createMetricsRegistry({ service: 's', defaultMetrics: false }).metrics()).not.toContain('process_cpu');
  });
});
