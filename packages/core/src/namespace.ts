// The one rule for namespace names, for every driver and store (SPEC section 3): checked by core
// before any driver sees a name, so that no driver can be handed '..', '' or 'a/b'.

const NAMESPACE_PATTERN = /^[A-Za-z0-9_@+=-][A-Za-z0-9._@+=-]{0,127}$/;

/** The rule, as messages state it. */
export const NAMESPACE_RULE =
  'use 1 to 128 characters from A-Z a-z 0-9 . _ - @ + = and do not start with "."';

/**
 * Checks a namespace name given by the application.
 * @throws TypeError when it is not 1-128 characters from `A-Z a-z 0-9 . _ - @ + =` or starts with `.`
 *   (so `''`, `.`, `..`, `a/b` and `../x` are all refused).
 */
export function validateNamespace(namespace: string): string {
  if (typeof namespace !== 'string' || !NAMESPACE_PATTERN.test(namespace)) {
    const shown = typeof namespace === 'string' ? JSON.stringify(namespace.slice(0, 140)) : typeof namespace;
    throw new TypeError(`Invalid @memdir/core option namespace: ${shown}: ${NAMESPACE_RULE}`);
  }
  return namespace;
}
