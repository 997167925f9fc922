import { parseArgs } from 'node:util';

export interface BenchArgs {
  quick: boolean;
  /** Timed rounds per tool and workload, overriding each workload's default. */
  rounds: number | undefined;
  /** Run only these workloads. */
  only: ('mixed' | 'listing')[];
  /** Where the work folders go; defaults to `bench/.work`. */
  dir: string | undefined;
  /** Also time each command of the mixed loop on its own. */
  byCommand: boolean;
  /** Run only these sections (by id); empty runs every section. */
  sections: string[];
  /** A built checkout of an earlier commit, for the baseline section. */
  baseline: string | undefined;
  help: boolean;
}

export const USAGE = `Usage: pnpm bench [--section ID]... [--quick] [--rounds N] [--only mixed|listing] [--dir PATH] [--by-command] [--baseline DIR]

Measures memdir in one run and prints a Markdown report on stdout (progress goes to stderr), one
section each:
  fs               the filesystem store against Anthropic's BetaLocalFilesystemMemoryTool
  calls            driver calls per command, in-memory and filesystem drivers
and one section per server adapter (see bench/README.md).

  --section ID     run only this section (repeatable; default: all)
  --quick          fewer, shorter rounds (fs: ~20 s instead of ~1.5 min)
  --rounds N       timed rounds per tool and workload (default: mixed 15, listing 9;
                   with --quick: mixed 5, listing 3)
  --only NAME      fs section: run one workload, mixed or listing (repeatable)
  --dir PATH       put the work folders under PATH (default: bench/.work); removed at the end
  --by-command     also time each command of the mixed loop on its own (a second table)
  --baseline DIR   baseline section: a built checkout of an earlier commit to compare with
  --help           show this text`;

/** Parses the command line; throws a TypeError with a readable message on bad input. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      only: { type: 'string', multiple: true },
      dir: { type: 'string' },
      'by-command': { type: 'boolean', default: false },
      section: { type: 'string', multiple: true },
      baseline: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const quick = values.quick ?? false;
  let rounds: number | undefined;
  if (values.rounds !== undefined) {
    rounds = Number(values.rounds);
    if (!Number.isInteger(rounds) || rounds < 1)
      throw new TypeError(`--rounds must be a positive integer, got ${values.rounds}`);
  }
  const only = (values.only ?? ['mixed', 'listing']).map((name) => {
    if (name !== 'mixed' && name !== 'listing')
      throw new TypeError(`--only must be mixed or listing, got ${name}`);
    return name;
  });
  return {
    quick,
    rounds,
    only: [...new Set(only)],
    dir: values.dir,
    byCommand: values['by-command'] ?? false,
    sections: [...new Set(values.section ?? [])],
    baseline: values.baseline,
    help: values.help ?? false,
  };
}
