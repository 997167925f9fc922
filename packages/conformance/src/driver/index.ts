// The driver group: checks on the bare driver (targets with `createDriver`) of what the engine
// relies on, beyond what the commands show: refusals carry the right code and `path`; `read` tells
// a directory from nothing; `describe` agrees with `read` + `list` + the kit's reference fold and
// honours `limit`; compare-and-swap refuses with CONFLICT; `list` gives every file once; a change
// replayed with its operation id is not applied twice (where `capabilities.replaySafe`).
//
// What the replay checks cannot see: they send the same call twice from here, which is what a
// resent request looks like to a driver that passes the id to its server; they cannot make the
// client library itself resend (an adapter's own fault-injection tests must), nor race a replay
// against the original still in flight, nor see how long the record is kept.
import type { Suite } from '../suite.js';
import { driverNamespaceRuleTests, driverNamespaceTests } from './namespaces.js';
import { driverReadTests } from './reads.js';
import { driverReplayTests } from './replays.js';
import { driverStructureTests } from './structure.js';
import { driverWriteTests } from './writes.js';

export function driverTests(suite: Suite): void {
  const methods = suite.driverMethods;
  if (methods === undefined) return;
  driverReadTests(suite, methods);
  driverWriteTests(suite, methods);
  driverStructureTests(suite);
  driverNamespaceTests(suite);
  driverNamespaceRuleTests(suite);
  driverReplayTests(suite, methods);
}
