// The help of `memdir config`: the settings, their environment variables and the config file.

export const CONFIG_HELP = `Usage: memdir config [--config FILE] [--json] [SETTING FLAGS]

Shows the settings a command would run with, and where each comes from: a flag, an environment
variable or the config file. A store URL's password and keys are shown as ***.

Every store flag, every flag of serve --http and the own flags of ui and sync (but sync's
--json) are settings. Each is found, the first that gives it winning:
  1. the flag                          --max-file-bytes 65536
  2. its environment variable          MEMDIR_MAX_FILE_BYTES=65536
     (MEMDIR_ and the flag's name in capitals, "_" for "-"; a list is comma-separated, a
     true/false is true, false, 1 or 0)
  3. the config file, a TOML file      max-file-bytes = 65536
     (the flag's name as the key: the store flags at the top, those of serve --http in a
     [serve] table, those of ui in [ui] (listen), those of sync in [sync] (once, interval,
     delete-delay, deletions, read-only); a list is an array of strings)

The config file is the first of: --config FILE; $MEMDIR_CONFIG; ./memdir.toml; then
$XDG_CONFIG_HOME/memdir/config.toml (~/.config/memdir/config.toml). Only that one is read. A
file named by --config or $MEMDIR_CONFIG must exist; an unknown key, a value of the wrong type
or a TOML error stops every command with the file, line or key named. Paths in it (tokens,
file: stores) are taken from the working directory, as on the command line.

Example memdir.toml, for a server configured by the file alone (memdir serve):
  store = "redis://:password@localhost:6379"
  actor = "service:memdir"

  [serve]
  http = "0.0.0.0:8787"
  tokens = "/etc/memdir/tokens.json"
  rate = 50
  allowed-host = ["memory.example.com"]
  quota-bytes = 100000000

  [ui]
  listen = "127.0.0.1:8080"

  [sync]
  interval = 60
  deletions = "log-only"

"http" in the file makes "memdir serve" serve over HTTP; the other [serve] keys are used only
then. A namespace from the environment or the file does not go with --http (each token has
its own).

      --config FILE        the config file to read (instead of looking for one)
      --json               one JSON object: {"file": PATH or null, "settings": [{"name",
                             "value", "from": "flag" | "env" | "file", "source"}]}
  -h, --help               show this help

Example:
  memdir config
  MEMDIR_NAMESPACE=alice memdir config --json`;
