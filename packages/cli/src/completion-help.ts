// The help of memdir completion.

export const COMPLETION_HELP = `Usage: memdir completion bash|zsh|fish

Prints a script that completes memdir's commands and each command's flags in the shell, and
file names where a command takes a path on disk. Load it from the shell's start-up file:

  bash  (~/.bashrc)                   source <(memdir completion bash)
  zsh   (~/.zshrc, after compinit)    source <(memdir completion zsh)
  fish                                memdir completion fish > ~/.config/fish/completions/memdir.fish

  -h, --help   show this help`;
