// `memdir completion bash|zsh|fish`: a completion script for the shell, printed to stdout. The
// commands and each command's flags come from the help texts (the option lines of each usage), so
// the completion offers what `memdir COMMAND --help` documents and nothing else. The scripts are
// small enough to write by hand: a completion library would add a runtime dependency to every
// memdir command for three static strings.
import { expectPositionals, type Options, parseOrHelp } from './args.js';
import { COMPLETION_HELP } from './completion-help.js';
import { CliUsageError, EXIT_OK } from './errors.js';
import { COMMAND_HELP } from './help.js';
import { type CliIo, write } from './io.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/**
 * A flag that opens an option line of a help text: indented, maybe a short flag first, and not an
 * example's continuation (a flag followed by a quoted value).
 */
const OPTION_LINE = /^ {2,}(?:-\w, )?(--[a-z][a-z0-9-]*)(?![a-z0-9-]|[ =]")/gm;

/** Each command memdir has, with the flags its help documents, in the order of the help. */
export function completionTable(): Map<string, string[]> {
  const table = new Map<string, string[]>();
  for (const [command, help] of Object.entries(COMMAND_HELP)) {
    table.set(command, [...new Set([...help.matchAll(OPTION_LINE)].map((match) => match[1]!))]);
  }
  table.set('help', []);
  return table;
}

/** The completion script for `shell`. */
export function completionScript(shell: Shell): string {
  const table = completionTable();
  const commands = [...table.keys()].join(' ');
  if (shell === 'fish') {
    const lines = [
      '# memdir completion for fish: memdir completion fish > ~/.config/fish/completions/memdir.fish',
      'complete -c memdir -f',
      `complete -c memdir -n __fish_use_subcommand -a '${commands}'`,
      `complete -c memdir -n '__fish_seen_subcommand_from help' -a '${commands}'`,
    ];
    for (const [command, flags] of table) {
      for (const flag of flags) {
        lines.push(`complete -c memdir -n '__fish_seen_subcommand_from ${command}' -l ${flag.slice(2)}`);
      }
    }
    lines.push(`complete -c memdir -n '__fish_seen_subcommand_from init sync conformance' -F`);
    return `${lines.join('\n')}\n`;
  }
  const cases = [...table]
    .map(([command, flags]) => `    ${command}) flags='${flags.join(' ')}' ;;`)
    .join('\n');
  const bash = `_memdir() {
  local cur=\${COMP_WORDS[COMP_CWORD]} command='' flags='' i
  for (( i = 1; i < COMP_CWORD; i++ )); do
    case \${COMP_WORDS[i]} in
      --store|-s|--namespace|--config) (( i++ )) ;;
      -*) ;;
      *) command=\${COMP_WORDS[i]}; break ;;
    esac
  done
  if [[ -z $command ]]; then
    if [[ $cur == -* ]]; then COMPREPLY=( $(compgen -W '--help --version --store --namespace --config' -- "$cur") )
    else COMPREPLY=( $(compgen -W '${commands}' -- "$cur") ); fi
    return
  fi
  case $command in
${cases}
  esac
  if [[ $cur == -* ]]; then COMPREPLY=( $(compgen -W "$flags" -- "$cur") )
  elif [[ $command == help ]]; then COMPREPLY=( $(compgen -W '${commands}' -- "$cur") )
  else COMPREPLY=( $(compgen -f -- "$cur") ); fi
}
complete -o filenames -F _memdir memdir
`;
  if (shell === 'bash') return `# memdir completion for bash: source <(memdir completion bash)\n${bash}`;
  // zsh runs the same function through its bash completion layer (part of zsh since 4.2).
  return `# memdir completion for zsh: source <(memdir completion zsh), after compinit
autoload -U +X bashcompinit && bashcompinit
${bash}`;
}

const OPTIONS: Options = { help: { type: 'boolean', short: 'h' } };

/** `memdir completion SHELL`. */
export async function runCompletion(args: string[], io: CliIo): Promise<number> {
  const parsed = await parseOrHelp('completion', args, OPTIONS, COMPLETION_HELP, io);
  if (parsed === undefined) return EXIT_OK;
  expectPositionals('completion', parsed.positionals, 1, 1);
  const shell = parsed.positionals[0]!;
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new CliUsageError(
      `completion: no completion for ${JSON.stringify(shell)}: give bash, zsh or fish`,
      {
        hint: 'Run "memdir completion --help" for usage.',
      },
    );
  }
  await write(io.stdout, completionScript(shell as Shell));
  return EXIT_OK;
}
