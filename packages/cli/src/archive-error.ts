// The one error of the archive files (archive*.ts), apart so that each can throw it.
/** Thrown by `import` for an archive it will not import; the message says why. */
export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
}
