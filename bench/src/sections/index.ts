// The sections of `pnpm bench`, in report order. A backend adds its section here (one line) and
// keeps its code in a file of its own in this folder.
import type { BenchArgs } from '../args.js';
import { apiSection } from './api.js';
import { baselineSection } from './baseline.js';
import { copySection } from './copy.js';
import { driverCallsSection } from './driver-calls.js';
import { engineSection } from './engine.js';
import { fsReferenceSection } from './fs-reference.js';
import { historySection } from './history.js';
import { identitySection } from './identity.js';
import { otelSection } from './otel.js';
import { postgresSection } from './postgres.js';
import { redisSection } from './redis.js';
import { s3Section } from './s3.js';
import type { BenchSection } from './section.js';
import { serveSection } from './serve.js';
import { serveHostileSection } from './serve-hostile.js';
import { syncSection } from './sync.js';
import { tenantsSection } from './tenants.js';

export type { BenchSection, SectionContext } from './section.js';

export function benchSections(args: BenchArgs): BenchSection[] {
  return [
    fsReferenceSection(args),
    driverCallsSection(),
    engineSection(),
    postgresSection(),
    redisSection(),
    s3Section(),
    serveSection(args.baseline),
    serveHostileSection(),
    otelSection(),
    copySection(),
    historySection(),
    identitySection(),
    baselineSection(args.baseline),
    tenantsSection(),
    apiSection(),
    syncSection(),
  ];
}
