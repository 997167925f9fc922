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
  help: boolean;
}

export const USAGE = `Usage: pnpm bench [--quick] [--rounds N] [--only mixed|listing] [--dir PATH] [--by-command]

Measures the memdir filesystem store against Anthropic's BetaLocalFilesystemMemoryTool on the same
workloads, and prints a Markdown table on stdout (progress goes to stderr).

  --quick          a ~20 s run (fewer, shorter rounds) instead of the full run (~1.5 min)
  --rounds N       timed rounds per tool and workload (default: mixed 15, listing 9;
                   with --quick: mixed 5, listing 3)
  --only NAME      run one workload: mixed or listing (repeatable)
  --dir PATH       put the work folders under PATH (default: bench/.work); removed at the end
  --by-command     also time each command of the mixed loop on its own (a second table)
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
    help: values.help ?? false,
  };
}
