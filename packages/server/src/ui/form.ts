// A form body (`application/x-www-form-urlencoded`) read within a bound: the inspector's forms hold
// a token, a version id and a CSRF token, never more than a few hundred bytes.

/** The largest form body read. */
export const MAX_FORM_BYTES = 8 * 1024;

/** The fields of the form, or `undefined` when the body is not a form or is larger than the bound. */
export async function readForm(request: Request): Promise<URLSearchParams | undefined> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) return undefined;
  if (Number(request.headers.get('content-length') ?? 0) > MAX_FORM_BYTES) return undefined;
  if (request.body === null) return new URLSearchParams();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > MAX_FORM_BYTES) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
