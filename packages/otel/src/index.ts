/**
 * OpenTelemetry for memdir: subscribes to `@memdir/core`'s tracing channels (`memdir:command`,
 * `memdir:driver`) and turns them into spans and metrics, with no path and no content unless the
 * application opted in on its stores (`telemetry: { paths }`).
 *
 * ```ts
 * import { instrumentMemdir } from '@memdir/otel';
 * const instrumentation = instrumentMemdir(); // the global tracer and meter providers
 * ```
 * @module
 */
import diagnostics from 'node:diagnostics_channel';
import type { CommandTrace, DriverTrace } from '@memdir/core';
import {
  type Attributes,
  type Counter,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  context as otelContext,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';

/** The instrumentation scope's name and version, as spans and metrics carry them. */
export const SCOPE_NAME = '@memdir/otel';
export const SCOPE_VERSION = '0.0.0';

/** Options of {@link instrumentMemdir}. */
export interface MemdirInstrumentationOptions {
  /** @default the global tracer provider (`trace.getTracerProvider()`) */
  tracerProvider?: TracerProvider | undefined;
  /** @default the global meter provider (`metrics.getMeterProvider()`) */
  meterProvider?: MeterProvider | undefined;
  /**
   * The tool's name on spans (`execute_tool {name}`, `gen_ai.tool.name`).
   * @default 'memory'
   */
  toolName?: string | undefined;
  /**
   * A child span per driver call (database conventions). Off, a command is one span; the
   * `db.client.operation.duration` metric is recorded either way.
   * @default true
   */
  driverSpans?: boolean | undefined;
}

/** What {@link instrumentMemdir} returns. */
export interface MemdirInstrumentation {
  /** Unsubscribes from the channels; spans already started end as usual. Idempotent. */
  disable(): void;
}

/**
 * `db.system.name` for each memdir driver kind: the well-known names of the database conventions
 * where one exists, else `memdir.<kind>`.
 */
const DB_SYSTEM: Readonly<Record<string, string>> = {
  redis: 'redis',
  postgres: 'postgresql',
  s3: 'aws.s3',
};

/** The buckets the database conventions give for `db.client.operation.duration`, in seconds. */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];

interface Instruments {
  commandDuration: Histogram;
  commandErrors: Counter;
  commandRetries: Counter;
  commandBytes: Counter;
  operationDuration: Histogram;
}

function instruments(meter: Meter): Instruments {
  return {
    commandDuration: meter.createHistogram('memdir.command.duration', {
      description: 'How long one memory command took, from the tool call to its result.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    commandErrors: meter.createCounter('memdir.command.errors', {
      description: 'Memory commands that ended with an error, by error code.',
      unit: '{command}',
    }),
    commandRetries: meter.createCounter('memdir.command.retries', {
      description:
        'Retries inside memory commands: driver retries (reconnects, rollbacks) and compare-and-swap writes lost to another writer.',
      unit: '{retry}',
    }),
    commandBytes: meter.createCounter('memdir.command.bytes', {
      description: 'UTF-8 bytes of file content read and written by memory commands.',
      unit: 'By',
    }),
    operationDuration: meter.createHistogram('db.client.operation.duration', {
      description: 'Duration of database client operations (memdir driver calls).',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
  };
}

/** The attributes every metric of a command shares: low-cardinality only. */
function commandAttributes(command: CommandTrace): Attributes {
  return {
    'memdir.command': command.command,
    'memdir.store': command.store,
    'memdir.outcome': command.outcome ?? 'unknown',
  };
}

function dbSystem(kind: string): string {
  return DB_SYSTEM[kind] ?? `memdir.${kind}`;
}

/**
 * Subscribes to memdir's channels: a span per command following the GenAI tool conventions
 * (`execute_tool memory`, INTERNAL, `gen_ai.operation.name`, `gen_ai.tool.name`,
 * `gen_ai.tool.call.id` when the integration passed one), a CLIENT child span per driver call
 * following the database conventions (`{method} {db.system.name}`, `db.system.name`,
 * `db.operation.name`), and the metrics `memdir.command.duration`, `memdir.command.errors`,
 * `memdir.command.retries`, `memdir.command.bytes` and `db.client.operation.duration`. Span names
 * and attribute values are low-cardinality; nothing carries a path or content unless a store opted in
 * (`telemetry.paths`, then `memdir.path`).
 */
export function instrumentMemdir(options: MemdirInstrumentationOptions = {}): MemdirInstrumentation {
  const tracer: Tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(
    SCOPE_NAME,
    SCOPE_VERSION,
  );
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE_NAME, SCOPE_VERSION);
  const toolName = options.toolName ?? 'memory';
  const driverSpans = options.driverSpans ?? true;
  const recorded = instruments(meter);
  const commandSpans = new WeakMap<CommandTrace, Span>();
  const driverSpanOf = new WeakMap<DriverTrace, Span>();

  const commandChannel = diagnostics.tracingChannel('memdir:command');
  const driverChannel = diagnostics.tracingChannel('memdir:driver');

  const commandHandlers = {
    start(message: unknown) {
      const command = message as CommandTrace;
      const attributes: Attributes = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': toolName,
        'gen_ai.tool.type': 'extension',
        'memdir.command': command.command,
        'memdir.store': command.store,
        'memdir.store.id': command.storeId,
      };
      if (command.toolUseId !== undefined) attributes['gen_ai.tool.call.id'] = command.toolUseId;
      const span = tracer.startSpan(`execute_tool ${toolName}`, { kind: SpanKind.INTERNAL, attributes });
      commandSpans.set(command, span);
    },
    end() {},
    asyncStart() {},
    asyncEnd(message: unknown) {
      const command = message as CommandTrace;
      const span = commandSpans.get(command);
      commandSpans.delete(command);
      const failed = command.outcome !== 'ok';
      if (span) {
        span.setAttributes({
          'memdir.outcome': command.outcome ?? 'unknown',
          'memdir.bytes.read': command.bytesRead,
          'memdir.bytes.written': command.bytesWritten,
          'memdir.driver.calls': command.driverCalls,
          'memdir.round_trips': command.roundTrips,
          'memdir.retries': command.retries,
          'memdir.conflicts': command.conflicts,
        });
        if (command.path !== undefined) span.setAttribute('memdir.path', command.path);
        if (command.reason !== undefined) span.setAttribute('memdir.backend.reason', command.reason);
        if (failed) {
          span.setAttribute('error.type', command.outcome ?? 'unknown');
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      }
      const attributes = commandAttributes(command);
      recorded.commandDuration.record(command.durationMs / 1000, attributes);
      if (failed) {
        recorded.commandErrors.add(1, {
          ...attributes,
          'error.type': command.outcome ?? 'unknown',
          ...(command.reason === undefined ? {} : { 'memdir.backend.reason': command.reason }),
        });
      }
      const retries = command.retries + command.conflicts;
      if (retries > 0) recorded.commandRetries.add(retries, attributes);
      if (command.bytesRead > 0)
        recorded.commandBytes.add(command.bytesRead, { ...attributes, 'memdir.direction': 'read' });
      if (command.bytesWritten > 0) {
        recorded.commandBytes.add(command.bytesWritten, { ...attributes, 'memdir.direction': 'write' });
      }
    },
    error() {},
  };

  const driverHandlers = {
    start(message: unknown) {
      if (!driverSpans) return;
      const call = message as DriverTrace;
      const parent = commandSpans.get(call.parent);
      const parentContext = parent ? trace.setSpan(otelContext.active(), parent) : otelContext.active();
      const system = dbSystem(call.store);
      const span = tracer.startSpan(
        `${call.method} ${system}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'db.system.name': system,
            'db.operation.name': call.method,
            'memdir.store.id': call.storeId,
            'memdir.command': call.command,
          },
        },
        parentContext,
      );
      driverSpanOf.set(call, span);
    },
    end() {},
    asyncStart() {},
    asyncEnd(message: unknown) {
      const call = message as DriverTrace;
      const failed = call.outcome !== 'ok';
      const span = driverSpanOf.get(call);
      driverSpanOf.delete(call);
      if (span) {
        span.setAttributes({
          'memdir.round_trips': call.roundTrips,
          'memdir.requests': call.requests,
          'memdir.retries': call.retries,
        });
        if (failed) {
          span.setAttribute('error.type', call.outcome ?? 'unknown');
          if (call.reason !== undefined) span.setAttribute('memdir.backend.reason', call.reason);
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      }
      recorded.operationDuration.record(call.durationMs / 1000, {
        'db.system.name': dbSystem(call.store),
        'db.operation.name': call.method,
        ...(failed ? { 'error.type': call.outcome ?? 'unknown' } : {}),
      });
    },
    error() {},
  };

  commandChannel.subscribe(commandHandlers);
  driverChannel.subscribe(driverHandlers);
  let enabled = true;
  return {
    disable() {
      if (!enabled) return;
      enabled = false;
      commandChannel.unsubscribe(commandHandlers);
      driverChannel.unsubscribe(driverHandlers);
    },
  };
}
