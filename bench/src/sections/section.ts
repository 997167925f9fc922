/** What every section of `pnpm bench` gets. */
export interface SectionContext {
  /** `--quick`: fewer, shorter rounds. */
  readonly quick: boolean;
  /** A folder the section may fill; removed at the end of the run. */
  readonly workDir: string;
  /** Progress lines (stderr). */
  log(line: string): void;
}

/**
 * One section of the report: the filesystem store against Anthropic's reference, the driver calls
 * per command, one section per server adapter. Each measures in the same run and returns Markdown.
 */
export interface BenchSection {
  /** The name `--section` selects it by. */
  readonly id: string;
  /** One line for `--help`. */
  readonly summary: string;
  /** Measures, and resolves to the section's Markdown (a `##` heading, then tables). */
  run(context: SectionContext): Promise<string>;
}
