// What OpenTelemetry costs a store (issue 20's goal: at most 10% on a Redis `view`): the same view
// of a small file on Redis, interleaved rounds without and with `@memdir/otel` recording spans (into
// a processor that drops them) and metrics, one run.

import { instrumentMemdir } from '@memdir/otel';
import { createRedisStore } from '@memdir/redis';
import { startServers } from '@memdir/test-support';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, NoopSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { median } from '../stats.js';
import type { BenchSection } from './section.js';

async function timeViews(view: () => Promise<unknown>, count: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let index = 0; index < count; index++) await view();
  return Number(process.hrtime.bigint() - started) / count / 1000;
}

export function otelSection(): BenchSection {
  return {
    id: 'otel',
    summary:
      'what @memdir/otel costs a Redis view of a small file (spans and metrics recorded), against none',
    async run(context) {
      const servers = await startServers(['redis'], { log: (line) => context.log(`[otel] ${line}`) });
      const store = createRedisStore({
        url: servers.env['REDIS_URL']!,
        keyPrefix: `bench-otel-${process.pid}:`,
      });
      const rounds = context.quick ? 10 : 30;
      const perRound = context.quick ? 200 : 500;
      try {
        await store.create({
          command: 'create',
          path: '/memories/a.md',
          file_text: 'a small memory file\n'.repeat(8),
        });
        const view = () => store.view({ command: 'view', path: '/memories/a.md' });
        const tracerProvider = new BasicTracerProvider({ spanProcessors: [new NoopSpanProcessor()] });
        const meterProvider = new MeterProvider();
        context.log(
          `[otel] ${rounds} interleaved rounds of ${perRound} views, without and with instrumentation`,
        );
        await timeViews(view, perRound);
        const off: number[] = [];
        const on: number[] = [];
        for (let round = 0; round < rounds; round++) {
          off.push(await timeViews(view, perRound));
          const instrumentation = instrumentMemdir({ tracerProvider, meterProvider });
          on.push(await timeViews(view, perRound));
          instrumentation.disable();
        }
        await tracerProvider.shutdown();
        await meterProvider.shutdown();
        const without = median(off);
        const withOtel = median(on);
        const ratio = withOtel / without;
        return [
          '## OpenTelemetry cost (Redis view)',
          '',
          `A \`view\` of a small file on Redis (${servers.sources['redis'] ?? 'server'}), median µs per view of ${rounds} interleaved rounds of ${perRound}.`,
          '',
          '| | µs per view | ratio | goal | result |',
          '|---|---:|---:|---:|---|',
          `| without instrumentation | ${without.toFixed(1)} | 1.00x | | |`,
          `| with @memdir/otel (a span per command and per driver call, metrics) | ${withOtel.toFixed(1)} | ${ratio.toFixed(2)}x | <= 1.10x | ${ratio <= 1.1 ? 'PASS' : 'ABOVE'} |`,
        ].join('\n');
      } finally {
        await store.close();
        await servers.stop();
      }
    },
  };
}
