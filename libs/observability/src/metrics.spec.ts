import { Counter } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  counter,
  createMetricsRegistry,
  declareMetrics,
  gauge,
  histogram,
  LATENCY_BUCKETS_S,
  metricsClass,
  sumSamples,
} from './metrics';

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

describe('declareMetrics', () => {
  it('declares each row of a table on its registry under the fathom_ prefix, with its labels', async () => {
    const registry = createMetricsRegistry({ service: 's', defaultMetrics: false });
    const demo = declareMetrics(registry, {
      errors: counter('demo_errors_total', 'e', { labelNames: ['code'] }),
      activeSessions: gauge('demo_active_sessions', 'a'),
      stepSeconds: histogram('demo_step_seconds', 'l'),
      groupSeconds: histogram('demo_group_seconds', 'w', { buckets: [1, 60] }),
    });
    demo.errors.inc({ code: 'BAD' }, 2);
    demo.activeSessions.set(3);
    demo.stepSeconds.observe(0.002);
    demo.groupSeconds.observe(5);
    const text = await registry.metrics();
    expect(text).toContain('fathom_demo_errors_total{code="BAD",service="s"} 2');
    expect(text).toContain('fathom_demo_active_sessions{service="s"} 3');
    expect(text.match(/^fathom_demo_step_seconds_bucket/gm)).toHaveLength(LATENCY_BUCKETS_S.length + 1);
    expect(text).toContain('fathom_demo_group_seconds_bucket{le="60",service="s"} 1');
  });

  it('runs a collect hook at each scrape with the metric as this', async () => {
    const registry = createMetricsRegistry({ service: 's', defaultMetrics: false });
    let warm = 4;
    declareMetrics(registry, {
      warmIsolates: gauge('demo_warm_isolates', 'w', {
        collect() {
          this.set(warm);
        },
      }),
    });
    expect(sumSamples(await registry.metrics(), 'fathom_demo_warm_isolates')).toBe(4);
    warm = 2;
    expect(sumSamples(await registry.metrics(), 'fathom_demo_warm_isolates')).toBe(2);
  });
});

describe('metricsClass', () => {
  it("holds each row of the table as a field, the table built from the constructor's further arguments", async () => {
    class DemoMetrics extends metricsClass((step: number) => ({
      steps: counter('demo_steps_total', 's', {
        collect() {
          this.inc(step);
        },
      }),
      kl: gauge('demo_kl', 'k'),
    })) {}
    const registry = createMetricsRegistry({ service: 's', defaultMetrics: false });
    const demo = new DemoMetrics(registry, 2);
    demo.kl.set(0.5);
    const text = await demo.registry.metrics();
    expect(sumSamples(text, 'fathom_demo_steps_total')).toBe(2);
    expect(sumSamples(text, 'fathom_demo_kl')).toBe(0.5);
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
