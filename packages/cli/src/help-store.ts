// The parts of the help every store command shares (apart, so each command's help can use them).

/** The store options, as `memdir --help` and each store command's help list them. */
export const STORE_OPTIONS_HELP = `Store options (every command but conformance):
  -s, --store URL          where the memory lives (default: $MEMDIR_STORE, else the config
                             file's store, else file:./memory)
                             file:./memory      a folder (files under ./memory/memories/)
                             file:///abs/path   an absolute folder
                             memory:            this process's memory (for exec and serve)
                             redis://, postgres://, s3://  with @memdir/redis, /postgres, /s3 installed
                             memstore+https://HOST/memstore_ID  a memory stores API, with
                               @memdir/memory-stores (key: $MEMDIR_MEMORY_STORES_KEY)
      --namespace NAME     keep to this namespace of the store
      --no-overwrite       make create fail on an existing file (default: create overwrites)
      --overwrite          let create replace an existing file (the default)
      --max-file-bytes N   largest file create/str_replace/insert may write (default: 1048576)
      --max-view-chars N   most characters one view shows before truncating (default: 16000)
      --verbose            print what the store reports (connections, retries, lock waits) on stderr
      --actor ID           who the changes are made by, as memdir log shows it (default:
                             user:<login>@<host>; TYPE:ID for session:, api: or service:)
      --config FILE        the config file (default: $MEMDIR_CONFIG, else ./memdir.toml, else
                             $XDG_CONFIG_HOME/memdir/config.toml)
  -h, --help               show this help
  Each of these is also MEMDIR_<NAME> (MEMDIR_MAX_FILE_BYTES) and a key of the config file;
  a flag wins over the environment, the environment over the file ("memdir config --help").`;

/** What a memory command prints, and its exit codes. */
export const OUTPUT_HELP = `Output: the result text, exactly as the model reads it, then a newline, on stdout (exit 0).
A failed command prints "Error: {message}" on stderr (exit 1); a usage or store problem prints
"memdir: {problem}" on stderr (exit 2).`;
