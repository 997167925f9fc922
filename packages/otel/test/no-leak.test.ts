// Nothing leaks: the whole conformance suite runs on the filesystem store with tracing, metrics and
// debug logs on, and afterwards no span name, attribute, event, metric attribute or log line holds
// any path segment the suite wrote (of 4 characters or more: shorter ones are letters of every
// word) or any 8-character fragment of any content it wrote.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeMemoryStore } from '@memdir/conformance';
import { createMemoryStore, type DriverEdit, type MemdirLogger, type MemoryDriver } from '@memdir/core';
import { wrapDriver } from '@memdir/core/driver';
import { createFsDriver } from '@memdir/fs';
import { afterAll, expect, it } from 'vitest';
import { startOtel } from './otel-setup.js';

const base = mkdtempSync(join(tmpdir(), 'memdir-otel-leak-'));
const otel = startOtel();
const written = { segments: new Set<string>(), contents: new Set<string>() };
const logLines: string[] = [];
const logger: MemdirLogger = {
  debug: (message, fields) => logLines.push(`${message} ${JSON.stringify(fields ?? {})}`),
  info: (message, fields) => logLines.push(`${message} ${JSON.stringify(fields ?? {})}`),
  warn: (message, fields) => logLines.push(`${message} ${JSON.stringify(fields ?? {})}`),
  error: (message, fields) => logLines.push(`${message} ${JSON.stringify(fields ?? {})}`),
};

function path(driverPath: string): void {
  for (const segment of driverPath.split('/')) if (segment.length >= 4) written.segments.add(segment);
}

/** The fs driver, recording every path and every text the suite hands it to write. */
function recording(driver: MemoryDriver): MemoryDriver {
  return wrapDriver(driver, {
    namespace: (name) => recording(driver.namespace(name)),
    write: (target, content, options) => {
      path(target);
      written.contents.add(content);
      return driver.write(target, content, options);
    },
    edit: driver.edit
      ? (target, edit: DriverEdit, options) => {
          path(target);
          written.contents.add(edit.kind === 'str_replace' ? edit.newStr : edit.text);
          return driver.edit!(target, edit, options);
        }
      : undefined,
    update: driver.update
      ? (target, edit, options) => {
          path(target);
          return driver.update!(
            target,
            (content) => {
              const next = edit(content);
              written.contents.add(next);
              return next;
            },
            options,
          );
        }
      : undefined,
    move: (from, to, options) => {
      path(from);
      path(to);
      return driver.move(from, to, options);
    },
  });
}

describeMemoryStore({
  name: 'fs, with OpenTelemetry and debug logs on',
  propertyRuns: 20,
  createDriver: (backend) => recording(createFsDriver({ root: join(base, backend), logger } as never)),
});

/**
 * The store's id is a hash (`fs-` and 12 hex digits of its root folder, which the suite names, not
 * the model; `memory` for the in-memory reference of the differential group): checked for that shape here, and left out of the scan, where a 4-letter segment such
 * as `2024` or `cafe` would sometimes be found among its digits by chance.
 */
const STORE_ID = /^(fs-[0-9a-f]{12}|memory)$/;
const storeIds = new Set<string>();

/** Every string the telemetry produced: span names, attribute values, event names, metric attributes, log lines. */
async function emitted(): Promise<string[]> {
  const out: string[] = [...logLines];
  for (const span of otel.spans.getFinishedSpans()) {
    out.push(span.name);
    for (const [key, value] of Object.entries(span.attributes)) {
      if (key === 'memdir.store.id') storeIds.add(String(value));
      else out.push(String(value));
    }
    for (const event of span.events) {
      out.push(event.name);
      for (const value of Object.values(event.attributes ?? {})) out.push(String(value));
    }
  }
  const { resourceMetrics } = await otel.reader.collect();
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      out.push(metric.descriptor.name);
      for (const point of metric.dataPoints)
        for (const [key, value] of Object.entries(point.attributes)) {
          if (key === 'memdir.store.id') storeIds.add(String(value));
          else out.push(String(value));
        }
    }
  }
  return [...new Set(out)];
}

/** What of the suite's paths and contents `strings` hold: `segment in "..."` and `"fragment" in "..."`. */
function leaks(strings: readonly string[]): string[] {
  const found = strings.flatMap((text) =>
    [...written.segments]
      .filter((segment) => text.includes(segment))
      .map((segment) => `${segment} in ${JSON.stringify(text)}`),
  );
  const allContent = [...written.contents].join('\u0000');
  for (const text of strings) {
    for (let start = 0; start + 8 <= text.length; start++) {
      const fragment = text.slice(start, start + 8);
      if (allContent.includes(fragment)) found.push(`${JSON.stringify(fragment)} in ${JSON.stringify(text)}`);
    }
  }
  return found;
}

it('no path segment and no 8-character fragment of written content appears in any span, metric or log line', async () => {
  const strings = await emitted();
  expect(otel.spans.getFinishedSpans().length).toBeGreaterThan(1_000);
  expect(written.contents.size).toBeGreaterThan(100);
  expect(leaks(strings)).toEqual([]);
  expect(storeIds.size).toBeGreaterThan(0);
  for (const id of storeIds) expect(id).toMatch(STORE_ID);
});

it('the check finds a leak when there is one: a store that opts in to plain paths, and a log line with content', async () => {
  const driver = recording(createFsDriver({ root: join(base, 'opted-in') }));
  const store = createMemoryStore(driver, { telemetry: { paths: 'plain' } });
  await store.create({
    command: 'create',
    path: '/memories/visible-name/x.md',
    file_text: 'content seen by the check',
  });
  await store.close();
  await driver.close();
  const found = leaks([...(await emitted()), 'a log line quoting "content seen"']);
  expect(found.some((line) => line.startsWith('visible-name in '))).toBe(true);
  expect(found.some((line) => line.endsWith(' in "a log line quoting \\"content seen\\""'))).toBe(true);
});

afterAll(async () => {
  await otel.shutdown();
  rmSync(base, { recursive: true, force: true });
});
