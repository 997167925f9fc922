// The help of memdir ui.

export const UI_HELP = `Usage: memdir ui [--store URL] [--listen HOST:PORT] [--namespace NS]

Opens the inspector (memories, history and diffs in a browser) on this machine: a server on
loopback with a one-time token, printed on stderr, that sees every namespace of the store. Open
the address it prints, paste the token and press Enter. Stops on SIGINT (Ctrl-C) or SIGTERM.

      --listen HOST:PORT   where to listen, on loopback only (default: 127.0.0.1:0, a free port)
      --namespace NS       the namespace shown first (default: default)
  -s, --store URL          the store (default: $MEMDIR_STORE, else file:./memory)
  -h, --help               show this help
  Each of these is also MEMDIR_<NAME> (MEMDIR_LISTEN) and a key of the config file: listen in
  its [ui] table, store and namespace at the top; a flag wins over the environment, the
  environment over the file ("memdir config --help").`;
