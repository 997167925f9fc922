// `pnpm --filter @memdir/example-otel start`: the session of session.ts with the console exporters,
// which print each span (a command's `execute_tool memory`, a storage call's `write memdir.fs`...)
// and, at the end, the metrics. Offline.
import {
  ConsoleMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { runSession } from './session.js';

const tracerProvider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())],
});
const reader = new PeriodicExportingMetricReader({
  exporter: new ConsoleMetricExporter(),
  exportIntervalMillis: 60_000,
});
const meterProvider = new MeterProvider({ readers: [reader] });

await runSession(tracerProvider, meterProvider);
await reader.forceFlush();
await tracerProvider.shutdown();
await meterProvider.shutdown();
