// The example's session with the real SDK in memory: one command span per tool call, storage spans
// beneath, the metrics, and neither the paths nor the content of the session anywhere in them.
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { expect, test } from 'vitest';
import { runSession, SESSION } from '../src/session.js';

class Reader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

test('the session gives a span per command, storage spans beneath, metrics, and nothing of its content', async () => {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const reader = new Reader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const results = await runSession(tracerProvider, meterProvider);
  expect(results[4]).toBe(
    'Error: The path /memories/user/notes.md does not exist. Please provide a valid path.',
  );
  const finished = spans.getFinishedSpans();
  const commands = finished.filter((span) => span.name === 'execute_tool memory');
  expect(
    commands.map((span) => [span.attributes['memdir.command'], span.attributes['memdir.outcome']]),
  ).toEqual(SESSION.map((input, index) => [input.command, index === 4 ? 'NOT_FOUND' : 'ok']));
  expect(commands.map((span) => span.attributes['gen_ai.tool.call.id'])).toEqual(
    SESSION.map((_, index) => `toolu_${String(index + 1).padStart(2, '0')}`),
  );
  expect(finished.filter((span) => span.name.endsWith(' memdir.fs')).length).toBeGreaterThanOrEqual(
    SESSION.length,
  );
  const { resourceMetrics } = await reader.collect();
  const names = resourceMetrics.scopeMetrics.flatMap((scope) =>
    scope.metrics.map((metric) => metric.descriptor.name),
  );
  expect(names).toEqual(
    expect.arrayContaining([
      'memdir.command.duration',
      'memdir.command.errors',
      'db.client.operation.duration',
    ]),
  );
  const everything = JSON.stringify([finished.map((span) => [span.name, span.attributes]), resourceMetrics]);
  for (const secret of ['preferences', 'profile', 'notes', 'brief', 'metric units', 'user-42']) {
    expect(everything).not.toContain(secret);
  }
});
