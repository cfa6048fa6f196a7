import { Counter } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetricsRegistry, sumSamples } from './metrics';

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

describe('sumSamples', () => {
  it('sums the series of one metric whose labels include the given ones', async () => {
    const registry = createMetricsRegistry({ service: 's', defaultMetrics: false });
    const calls = new Counter({ name: 'calls_total', help: 'c', labelNames: ['outcome', 'by'], registers: [registry] });
    calls.inc({ outcome: 'ok', by: 'client' }, 3);
    calls.inc({ outcome: 'error', by: 'client' });
    calls.inc({ outcome: 'ok', by: 'service' }, 5);
    new Counter({ name: 'calls_total_other', help: 'o', registers: [registry] }).inc(100);
    const text = await registry.metrics();
    expect(sumSamples(text, 'calls_total')).toBe(9);
    expect(sumSamples(text, 'calls_total', { by: 'client' })).toBe(4);
    expect(sumSamples(text, 'calls_total', { outcome: 'ok', by: 'service' })).toBe(5);
    expect(sumSamples(text, 'calls_total', { outcome: 'missing' })).toBe(0);
    expect(sumSamples(text, 'calls_total_other')).toBe(100);
  });
});
