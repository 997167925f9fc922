// The kit's `hostile input` group: unknown fields, bodies that are not UTF-8 or not JSON, oversized
// bodies, every path rule, malformed ids and cursors, bad query values: each a 4xx with a clear
// message and `x-should-retry: false`, nothing written.
import { expect, it } from 'vitest';
import type { ApiKit } from './target.js';

export function hostileTests(kit: ApiKit): void {
  it('hostile input: refused with a clear 4xx, and nothing written', async () => {
    const store = await kit.createStore('hostile');
    const { baseUrl, token } = kit.connection();
    const raw = async (method: string, path: string, body?: string | Uint8Array) => {
      const response = await fetch(`${baseUrl}/v1/memory_stores/${store.id}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      const text = await response.text();
      expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
      expect(response.headers.get('request-id')).toMatch(/^req_/);
      return {
        status: response.status,
        retry: response.headers.get('x-should-retry'),
        body: JSON.parse(text),
      };
    };
    const refused = (status: number, message: string) => ({
      status,
      retry: 'false',
      body: {
        type: 'error',
        error: expect.objectContaining({
          type: status === 413 ? 'request_too_large' : 'invalid_request_error',
          message: kit.message(message),
        }),
        request_id: expect.stringMatching(/^req_/),
      },
    });
    expect(await raw('POST', '/memories', JSON.stringify({ path: '/a.md', content: 'x', extra: 1 }))).toEqual(
      refused(400, 'Unknown field "extra".'),
    );
    expect(await raw('POST', '/memories', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]))).toEqual(
      refused(400, 'The request body is not valid UTF-8.'),
    );
    expect(await raw('POST', '/memories', '{"path":')).toEqual(
      refused(400, 'The request body is not valid JSON.'),
    );
    expect(await raw('POST', '/memories', JSON.stringify({ path: '/a.md', content: null }))).toEqual(
      refused(400, 'content must be a string ("" for an empty memory).'),
    );
    expect(
      await raw('POST', '/memories', JSON.stringify({ path: '/a.md', content: 'x'.repeat(1024 * 1024) })),
    ).toEqual(refused(413, 'The request body is larger than 1048576 bytes.'));
    for (const [path, message] of [
      ['a.md', 'path must start with "/" and must not end with "/".'],
      ['/a/', 'path must start with "/" and must not end with "/".'],
      ['/a//b.md', 'path "/a//b.md" has an empty, "." or ".." segment.'],
      ['/a/../b.md', 'path "/a/../b.md" has an empty, "." or ".." segment.'],
      ['/a\u0007.md', 'path holds a control or format character.'],
      ['/a\u200b.md', 'path holds a control or format character.'],
      ['/e\u0301.md', 'path is not in Unicode NFC.'],
      [`/${'a/'.repeat(20)}b.md`, 'path has more than 20 segments.'],
    ] as const) {
      const answer = await raw('POST', '/memories', JSON.stringify({ path, content: 'x' }));
      expect(answer, path).toEqual(refused(400, message));
      if (kit.target.memdir) expect(answer.body.error.details).toEqual({ error_code: 'INVALID_PATH' });
    }
    if (kit.target.memdir) {
      // memdir's own path rules (SPEC section 2), after the API's.
      const percent = await raw('POST', '/memories', JSON.stringify({ path: '/a%2e.md', content: 'x' }));
      expect(percent.status).toBe(400);
      expect(percent.body.error.details).toEqual({ error_code: 'INVALID_PATH' });
    }
    expect((await raw('GET', '/memories/mem_nope')).status).toBe(404);
    expect((await raw('GET', '/memories/..%2f..%2fetc')).status).toBe(404);
    expect((await raw('GET', '/memory_versions/memver_x')).status).toBe(404);
    expect((await raw('GET', '/memories?page=bm90IGEgY3Vyc29y')).status).toBe(400);
    expect((await raw('GET', '/memories?path_prefix=notes')).status).toBe(400);
    expect((await raw('GET', '/memories?limit=0')).status).toBe(400);
    expect((await raw('GET', '/memories?view=everything')).status).toBe(400);
    expect((await raw('GET', '/memories?depth=-1')).status).toBe(400);
    expect((await raw('GET', '/memory_versions?operation=renamed')).status).toBe(400);
    expect((await raw('GET', '/memory_versions?created_at%5Bgte%5D=yesterday')).status).toBe(400);
    const empty = await raw('POST', '/memories/mem_x', JSON.stringify({}));
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toEqual(kit.message('Give content, path, or both.'));
    expect((await raw('GET', '/nothing-here')).body.error.type).toBe('not_found_error');
    // Nothing of the above was written.
    const { memories, memoryVersions } = kit.admin().beta.memoryStores;
    expect((await memories.list(store.id)).data).toEqual([]);
    expect((await memoryVersions.list(store.id)).data).toEqual([]);
  });
}
