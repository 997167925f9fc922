import { Redis } from 'ioredis';
import { createRedisStore } from './dist/index.js';

const url = 'redis://127.0.0.1:16390',
  prefix = 'micro7:';
const store = createRedisStore({ url, keyPrefix: prefix, namespace: 'bench' });
const plain = createRedisStore({ client: new Redis(url), keyPrefix: prefix, namespace: 'bench' });
await store.create({ command: 'create', path: '/memories/notes/a.md', file_text: 'alpha\nbeta\ngamma' });
const raw = new Redis(url);
const k = [`${prefix}{/bench}:f`, `${prefix}{/bench}:v`];
const sides = {
  memdir: () => store.view({ command: 'view', path: '/memories/notes/a.md' }),
  memdirPlainClient: () => plain.view({ command: 'view', path: '/memories/notes/a.md' }),
  raw: () => raw.pipeline().hget(k[0], 'notes/a.md').hget(k[1], 'notes/a.md').exec(),
  rawAll: () => Promise.all([raw.hget(k[0], 'notes/a.md'), raw.hget(k[1], 'notes/a.md')]),
};
const cpu = {},
  wall = {};
for (const n in sides) {
  cpu[n] = 0;
  wall[n] = [];
}
for (let i = 0; i < 6000; i++)
  for (const n in sides) {
    const c = process.cpuUsage();
    const t = performance.now();
    await sides[n]();
    const w = performance.now() - t;
    const d = process.cpuUsage(c);
    if (i >= 1000) {
      cpu[n] += d.user + d.system;
      wall[n].push(w);
    }
  }
const med = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return (s[s.length >> 1] * 1000).toFixed(0);
};
for (const n in sides)
  console.log(n.padEnd(18), 'cpu', (cpu[n] / 5000).toFixed(0), 'µs/op   wall p50', med(wall[n]));
await store.close();
await plain.close();
raw.disconnect();
