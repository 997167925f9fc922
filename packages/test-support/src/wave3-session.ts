// The session the wave 3 upgrade fixtures were written with, and what it leaves. Each adapter keeps
// a fixture made by running this session on the wave 3 release (a build of commit 61d215c) through
// `test/fixtures/make-wave3-*.mjs` (fs, Redis, S3); its upgrade test reads that fixture with the
// current release and expects these files, this many versions, and the ids that release's history
// gives them.

/** The namespace the session writes in. */
export const WAVE3_NAMESPACE = 'team';

/** Who the session's changes are made by. */
export const WAVE3_ACTOR = { type: 'user', id: 'ada' } as const;

/** The memory tool inputs of the session, in order: each one version. */
export const WAVE3_SESSION = [
  { command: 'create', path: '/memories/notes.md', file_text: 'first\n' },
  { command: 'str_replace', path: '/memories/notes.md', old_str: 'first', new_str: 'second' },
  { command: 'create', path: '/memories/projects/alpha.md', file_text: '# alpha\n' },
  { command: 'insert', path: '/memories/projects/alpha.md', insert_line: 1, insert_text: 'status: on\n' },
  { command: 'create', path: '/memories/projects/beta.md', file_text: 'beta\n' },
  { command: 'rename', old_path: '/memories/projects/beta.md', new_path: '/memories/archive/beta.md' },
  { command: 'create', path: '/memories/gone.md', file_text: 'gone\n' },
  { command: 'delete', path: '/memories/gone.md' },
  { command: 'create', path: '/memories/caf\u00e9 \u{1F600}.md', file_text: 'unicode \u00e9\n' },
] as const;

/** The versions the session makes. */
export const WAVE3_VERSIONS = WAVE3_SESSION.length;

/** The files the session leaves (paths below /memories), in the UTF-8 byte order of their paths. */
export const WAVE3_FILES: ReadonlyMap<string, string> = new Map([
  ['archive/beta.md', 'beta\n'],
  ['caf\u00e9 \u{1F600}.md', 'unicode \u00e9\n'],
  ['notes.md', 'second\n'],
  ['projects/alpha.md', '# alpha\nstatus: on\n'],
]);
