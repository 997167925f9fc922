// The real OpenTelemetry SDK, in memory: spans to an in-memory exporter, metrics to a reader that
// the test collects from.
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { instrumentMemdir, type MemdirInstrumentation } from '../src/index.js';

class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

export interface Otel {
  readonly spans: InMemorySpanExporter;
  readonly reader: CollectingReader;
  readonly instrumentation: MemdirInstrumentation;
  /** Every data point of the metric `name`: its attributes and value (a sum, or a histogram's count). */
  points(name: string): Promise<Array<{ attributes: Record<string, unknown>; value: number; sum?: number }>>;
  shutdown(): Promise<void>;
}

export function startOtel(options: { driverSpans?: boolean } = {}): Otel {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const instrumentation = instrumentMemdir({ tracerProvider, meterProvider, ...options });
  return {
    spans,
    reader,
    instrumentation,
    async points(name) {
      const { resourceMetrics } = await reader.collect();
      const out: Array<{ attributes: Record<string, unknown>; value: number; sum?: number }> = [];
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          if (metric.descriptor.name !== name) continue;
          for (const point of metric.dataPoints) {
            const value = point.value as number | { count: number; sum: number };
            out.push(
              typeof value === 'number'
                ? { attributes: { ...point.attributes }, value }
                : { attributes: { ...point.attributes }, value: value.count, sum: value.sum },
            );
          }
        }
      }
      return out;
    },
    async shutdown() {
      instrumentation.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
