import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openStore } from '../src/cli.js';
import { databaseUrl, dropSchema, freshSchema, testPool } from './helpers.js';

const admin = testPool();
afterAll(() => admin.end());

function withSchema(url: string, schema: string, scheme = 'postgres:'): string {
  const parsed = new URL(url);
  parsed.searchParams.set('schema', schema);
  return `${scheme}${parsed.toString().slice(parsed.protocol.length)}`;
}

describe('@memdir/postgres/cli', () => {
  it('openStore takes postgres:// and postgresql:// URLs, with ?schema= for the schema', async () => {
    const schema = freshSchema();
    try {
      for (const scheme of ['postgres:', 'postgresql:']) {
        const store = openStore(withSchema(databaseUrl(), schema, scheme), { namespace: 'cli' });
        await store.create({ command: 'create', path: '/memories/a.md', file_text: scheme });
        expect(await store.view({ command: 'view', path: '/memories/a.md' })).toContain(`     1\t${scheme}`);
        await store.close();
      }
      const { rows } = await admin.query(`SELECT ns, path FROM "${schema}".files`);
      expect(rows).toEqual([{ ns: 'cli', path: 'a.md' }]);
    } finally {
      await dropSchema(admin, schema);
    }
  });

  it('migrate sets up the schema and says so, without credentials; running it twice is fine', async () => {
    const schema = freshSchema();
    try {
      const url = new URL(withSchema(databaseUrl(), schema));
      url.password = 'unused-secret';
      expect(await migrate(url.toString())).toBe(`memdir tables are set up in schema ${schema}`);
      expect(await migrate(url.toString())).toBe(`memdir tables are set up in schema ${schema}`);
      const { rows } = await admin.query('SELECT to_regclass($1) IS NOT NULL AS made', [`"${schema}".files`]);
      expect(rows).toEqual([{ made: true }]);
    } finally {
      await dropSchema(admin, schema);
    }
  });

  it('a URL that is not a PostgreSQL URL is refused without echoing it', () => {
    expect(() => openStore('postgres://user:pw-secret@[bad', {})).toThrow(
      'Invalid PostgreSQL URL: expected postgres://user@host:port/database',
    );
    expect(() => openStore('redis://user:pw-secret@host', {})).toThrow(
      /scheme postgres:\/\/ or postgresql:\/\//,
    );
  });
});
