// The keys a bench run left in Redis, found by prefix with SCAN (never KEYS, which would block the
// server other runs share) and removed with UNLINK: the clean-up of every section that uses Redis.
import type { Redis } from 'ioredis';

/** Every key of `prefix`, in the batches SCAN gives them (a key may come back twice, as SCAN allows). */
export async function* keysOf(redis: Redis, prefix: string): AsyncGenerator<string[]> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    yield keys;
    cursor = next;
  } while (cursor !== '0');
}

/** Removes every key of `prefix`. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  for await (const keys of keysOf(redis, prefix)) {
    if (keys.length > 0) await redis.unlink(...keys);
  }
}
