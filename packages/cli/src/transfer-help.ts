// The help of memdir copy, export and import (kept apart so `memdir --help` loads nothing else).
import { DEFAULT_STORE_URL } from './store-url.js';

export const COPY_HELP = `Usage: memdir copy --from URL --to URL [--namespace A[:B]] [--overwrite] [--dry-run] [--with-history] [--concurrency N] [--verbose]

Copies every file of one store to another (hidden files too), then reads the target back and checks
every file's size and SHA-256. Files already identical in the target are not rewritten, so a copy
that was interrupted (Ctrl-C) resumes when run again. A target file with other content is left alone
and reported, unless --overwrite.

  --from URL           the source store (file:, memory:, redis://, postgres://, s3://...)
  --to URL             the target store
  --namespace A[:B]    copy namespace A of the source into namespace B of the target (A alone: the
                       same on both sides; either side may be empty for no namespace)
  --overwrite          replace target files whose content differs
  --dry-run            say what would be copied; write nothing
  --max-file-bytes N   the target's file size limit (default 1048576): a larger file is not copied
                       and is listed with its size
  --concurrency N      files copied at once, 1 to 256 (default 16; 128 into a redis:// or
                       postgres:// store, which sends them together); with large files fewer, at
                       most 4 MiB of content in flight
  --with-history       copy the history first: every version with its id, file id, time, actor and
                       content; the files keep their ids. Both stores must keep a history, and the
                       target's must be empty (or the start of this copy, which then resumes)
  --verbose            print what the stores report (connections, retries, lock waits) on stderr
  --actor ID           who the target's new versions are made by (default: user:<login>@<host>)

Progress goes to stderr (a bar on a terminal, a line every 2 s otherwise), then a summary.
Exit codes: 0 every file copied and verified; 1 some file not copied or not verified; 2 a usage
error or a store that cannot be opened; 130 interrupted (run it again to resume).`;

export const EXPORT_HELP = `Usage: memdir export [--store URL] [--namespace N] [--with-history] [--concurrency N] [--verbose] > memory.tar

Writes every file of the store (hidden files too) to stdout as a standard tar archive of
memories/..., which tar -tf lists and tar -xf extracts, ending with memdir-manifest.json (every
file's size and SHA-256), which memdir import checks.

  --store URL, -s URL  the store (default: $MEMDIR_STORE, else ${DEFAULT_STORE_URL})
  --namespace N        the namespace to export
  --with-history       write the history too: every version, as JSON lines in memdir-history/ (the
                       manifest is then of version 2, which memdir import reads from this release on)
  --concurrency N      files read at once, ahead of the one being written (default 16)
  --verbose            print what the store reports (connections, retries, lock waits) on stderr

Exit codes: 0 exported; 1 a file could not be read; 2 a usage error or a store that cannot be opened.`;

export const IMPORT_HELP = `Usage: memdir import [--store URL] [--namespace N] [--overwrite] [--dry-run] [--with-history] [--concurrency N] [--verbose] < memory.tar

Reads an archive made by memdir export from stdin and writes its files into the store. The whole
archive is checked before anything is written: every header as soon as it is read (a size over
--max-file-bytes is refused from the header), path (no absolute path, no .., only memories/...),
type (regular files and folders only: no links, devices or FIFOs), UTF-8 content, and the
manifest's size and SHA-256 of every file. The archive is read as a stream and its files are kept
in a private folder under $TMPDIR (room for them is needed there) until every check has passed, so
memory stays bounded whatever its size. A damaged or hostile archive is refused with the reason,
and nothing is written. Then the files are written as memdir copy writes them, and verified. The
history of an archive made with export --with-history is checked the same way, line by line.

  --store URL, -s URL  the store (default: $MEMDIR_STORE, else ${DEFAULT_STORE_URL})
  --namespace N        the namespace to import into
  --overwrite          replace files whose content differs
  --dry-run            check the archive and say what would be written; write nothing
  --max-file-bytes N   the store's file size limit (default 1048576)
  --with-history       write the archive's history first, as memdir copy --with-history does
  --concurrency N      files written at once (default 16; 128 into a redis:// or postgres://
                       store)
  --verbose            print what the store reports (connections, retries, lock waits) on stderr
  --actor ID           who the new versions are made by (default: user:<login>@<host>)

Exit codes: 0 imported and verified; 1 archive refused, or a file not imported; 2 a usage error or a
store that cannot be opened; 130 interrupted.`;
