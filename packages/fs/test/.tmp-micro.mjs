import { mkdtempSync } from 'node:fs';
import { createFsStore } from '../dist/index.js';

for (const history of [
  false,
  { keepVersions: 20, keepDays: 30 },
  false,
  { keepVersions: 20, keepDays: 30 },
]) {
  const root = mkdtempSync('/tmp/fsb-micro-');
  const store = createFsStore({ root, history });
  const n = 500;
  let t = performance.now();
  for (let i = 0; i < n; i++)
    await store.create({ command: 'create', path: `/memories/f${i % 50}.md`, file_text: `edit ${i}` });
  const create = (performance.now() - t) / n;
  t = performance.now();
  for (let i = 0; i < n; i++) await store.view({ command: 'view', path: `/memories/f${i % 50}.md` });
  const view = (performance.now() - t) / n;
  t = performance.now();
  for (let i = 0; i < 50; i++)
    await store.rename({
      command: 'rename',
      old_path: `/memories/f${i}.md`,
      new_path: `/memories/g/f${i}.md`,
    });
  const rename = (performance.now() - t) / 50;
  console.log(
    JSON.stringify(history),
    'create',
    create.toFixed(3),
    'view',
    view.toFixed(3),
    'rename',
    rename.toFixed(3),
  );
  await store.close();
}
