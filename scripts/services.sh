#!/usr/bin/env bash
# Throwaway servers for memdir's tests and bench, on 127.0.0.1 only:
#   redis          Redis 7, standalone, no persistence, DEBUG allowed from loopback
#   redis-cluster  Redis Cluster: 3 masters, each with 1 replica (for CLUSTER FAILOVER tests)
#   postgres       PostgreSQL 15, fsync off, pg_stat_statements preloaded
#   s3             Ceph radosgw on a single-node in-memory Ceph cluster (auth none), one bucket
#
# Usage: scripts/services.sh up|down|env|status|install [redis|redis-cluster|postgres|s3|all]...
#   up       install what is missing (Debian packages), then start; a running server is left as is
#   down     stop what `up` started (pid files), delete its data, keep its logs
#   env      print `export` lines for the clients: eval "$(scripts/services.sh env all)"
#   status   one line per server; exit status 3 when one of them is not running
#   install  only install the Debian packages
# No service named means all. Progress goes to stderr, so `env` prints nothing but exports.
#
# Settings (environment):
#   MEMDIR_SERVICES_DIR            folder for every server's data and logs    /tmp/memdir-services
#   MEMDIR_REDIS_PORT              Redis                                      6390
#   MEMDIR_REDIS_CLUSTER_PORT      first of the Cluster's ports: the masters  7001
#                                  take 7001-7003, the replicas 7004-7006,
#                                  and each node's bus its port + 10000
#   MEMDIR_REDIS_CLUSTER_REPLICAS  replicas per master (0 or 1)               1
#   MEMDIR_POSTGRES_PORT           PostgreSQL                                 15432
#   MEMDIR_S3_PORT                 radosgw (S3 over HTTP)                     7480
#   MEMDIR_CEPH_MON_PORT           the Ceph monitor                           6789
#   MEMDIR_S3_BUCKET               the bucket created in radosgw              memdir-test
#   MEMDIR_SERVICES_TIMEOUT        seconds to wait for one server to answer   60
# Every default port lies below Linux's range of ephemeral ports (32768-60999): an outgoing
# connection (a Cluster node's bus link, say) never holds a port a server is about to bind.
# Each server lives in its own folder named after its port (redis-6390, postgres-15432...), so
# copies on other ports never share files.
set -euo pipefail

ROOT=${MEMDIR_SERVICES_DIR:-/tmp/memdir-services}
REDIS_PORT=${MEMDIR_REDIS_PORT:-6390}
CLUSTER_PORT=${MEMDIR_REDIS_CLUSTER_PORT:-7001}
CLUSTER_REPLICAS=${MEMDIR_REDIS_CLUSTER_REPLICAS:-1}
PG_PORT=${MEMDIR_POSTGRES_PORT:-15432}
S3_PORT=${MEMDIR_S3_PORT:-7480}
MON_PORT=${MEMDIR_CEPH_MON_PORT:-6789}
S3_BUCKET=${MEMDIR_S3_BUCKET:-memdir-test}
TIMEOUT=${MEMDIR_SERVICES_TIMEOUT:-60}
S3_REGION=us-east-1
S3_ACCESS_KEY=memdir-access-key
S3_SECRET_KEY=memdir-secret-key
SERVICES=(redis redis-cluster postgres s3)

say() { echo "[services] $*" >&2; }
# The values are URLs, names and keys of our own making, with no quote in them.
export_line() { printf "export %s='%s'\n" "$1" "$2"; }
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
is_root() { [ "$(id -u)" = 0 ]; }

# The port answers a TCP connect on loopback.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# The process in pid file $1 runs and is the program $2 (a reused pid of another program is not ours).
alive() {
  local pid comm state
  [ -f "$1" ] || return 1
  pid=$(head -n 1 "$1" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
  [ "$state" != Z ] && [ "${comm:0:15}" = "${2:0:15}" ]
}

# Refuses to start on a port another program holds: its clients would reach the wrong server.
ports_free() { # NAME VAR PORT...
  local name=$1 var=$2 port
  shift 2
  for port in "$@"; do
    if port_open "$port"; then
      say "$name: port $port on 127.0.0.1 is already taken by another program; stop it or choose other ports with $var"
      return 1
    fi
  done
}

# Polls CHECK... until it succeeds. Fails at once when the process in PIDFILE exits, and after
# $TIMEOUT seconds; both messages name the log to read.
wait_for() { # WHAT LOG PIDFILE PROGRAM CHECK...
  local what=$1 log=$2 pidfile=$3 program=$4 deadline
  shift 4
  deadline=$(( $(date +%s) + TIMEOUT ))
  until "$@" >/dev/null 2>&1; do
    if [ -n "$pidfile" ] && ! alive "$pidfile" "$program"; then
      say "$what: the server exited before it answered; see $log"
      return 1
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      say "$what: no answer within $TIMEOUT s; see $log"
      return 1
    fi
    sleep 0.1
  done
}

# Sends the process in PIDFILE (if it is PROGRAM) SIGNAL, waits up to 10 s, then SIGKILL.
stop_pid() { # PIDFILE PROGRAM [SIGNAL]
  local pidfile=$1 program=$2 signal=${3:-TERM} pid i
  alive "$pidfile" "$program" || { rm -f "$pidfile"; return 0; }
  pid=$(head -n 1 "$pidfile")
  kill "-$signal" "$pid" 2>/dev/null || true
  for i in $(seq 100); do
    alive "$pidfile" "$program" || break
    sleep 0.1
  done
  if alive "$pidfile" "$program"; then kill -KILL "$pid" 2>/dev/null || true; fi
  for i in $(seq 50); do
    alive "$pidfile" "$program" || break
    sleep 0.1
  done
  rm -f "$pidfile"
}

# Deletes a server's folder but its logs, so a failed run can still be read after `down`.
clear_data() { # DIR
  [ -d "$1" ] || return 0
  find "$1" -mindepth 1 -maxdepth 1 ! -name log -exec rm -rf {} +
}

# Starts PROGRAM ARGS... in its own session, detached from the caller's terminal and pipes
# (a caller that reads our output, like the tests' setup, must not wait on the server) and from
# our lock (fd 9), and writes its pid to PIDFILE.
launch() { # PIDFILE LOG PROGRAM ARGS...
  local pidfile=$1 log=$2
  shift 2
  setsid "$@" </dev/null >>"$log" 2>&1 9>&- &
  echo $! >"$pidfile"
  disown $! 2>/dev/null || true
}

# Runs a command as the postgres user when we are root (initdb refuses root), else as ourselves.
as_postgres() {
  if is_root; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_bindir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$dir" ] && [ -x "$dir/initdb" ] && echo "$dir"
}

# --- install ------------------------------------------------------------------------------------

packages_missing() { # SERVICE...
  local service program need=()
  for service in "$@"; do
    case $service in
      redis | redis-cluster) command -v redis-server >/dev/null && command -v redis-cli >/dev/null || need+=(redis-server) ;;
      postgres)
        pg_bindir >/dev/null || need+=(postgresql)
        ;;
      s3)
        for program in ceph-mon ceph-osd radosgw radosgw-admin ceph ceph-authtool monmaptool; do
          command -v "$program" >/dev/null || { need+=(ceph-mon ceph-osd radosgw); break; }
        done
        command -v curl >/dev/null || need+=(curl)
        ;;
    esac
  done
  [ ${#need[@]} -eq 0 ] || printf '%s\n' "${need[@]}" | sort -u | tr '\n' ' '
}

install_packages() { # SERVICE...
  local need started
  need=$(packages_missing "$@")
  [ -n "$need" ] || return 0
  if ! is_root; then
    say "missing Debian packages: $need"
    say "install them with: sudo apt-get update && sudo apt-get install -y --no-install-recommends $need"
    return 1
  fi
  started=$(date +%s%N)
  say "installing $need(apt-get)"
  mkdir -p "$ROOT"
  # shellcheck disable=SC2086 # $need is a list of package names
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need; } \
    >"$ROOT/apt.log" 2>&1; then
    say "apt-get failed; see $ROOT/apt.log"
    return 1
  fi
  say "installed in $(ms_since "$started") ms"
}

# --- Redis --------------------------------------------------------------------------------------

redis_dir() { echo "$ROOT/redis-$REDIS_PORT"; }

# Starts one redis-server in DIR on PORT, as the tests want it: loopback, no persistence, DEBUG
# allowed from loopback (DEBUG SLEEP simulates a stuck server).
redis_launch() { # DIR PORT EXTRA...
  local dir=$1 port=$2
  shift 2
  mkdir -p "$dir/log"
  launch "$dir/redis.pid" "$dir/log/redis.log" redis-server --port "$port" --bind 127.0.0.1 \
    --save '' --appendonly no --enable-debug-command local --dir "$dir" --daemonize no \
    --logfile '' "$@"
}

redis_answers() { redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null | grep -q PONG; }

redis_running() { alive "$(redis_dir)/redis.pid" redis-server; }

redis_up() {
  local dir started
  dir=$(redis_dir)
  if redis_running; then
    say "redis already running on 127.0.0.1:$REDIS_PORT"
    return 0
  fi
  started=$(date +%s%N)
  ports_free redis MEMDIR_REDIS_PORT "$REDIS_PORT" || return 1
  rm -rf "$dir"
  redis_launch "$dir" "$REDIS_PORT"
  if ! wait_for "redis on 127.0.0.1:$REDIS_PORT" "$dir/log/redis.log" "$dir/redis.pid" redis-server \
    redis_answers "$REDIS_PORT"; then
    redis_down
    return 1
  fi
  say "redis up on 127.0.0.1:$REDIS_PORT in $(ms_since "$started") ms"
}

redis_down() {
  local dir
  dir=$(redis_dir)
  stop_pid "$dir/redis.pid" redis-server
  clear_data "$dir"
}

redis_env() {
  export_line REDIS_URL "redis://127.0.0.1:$REDIS_PORT"
}

# --- Redis Cluster ------------------------------------------------------------------------------

cluster_dir() { echo "$ROOT/redis-cluster-$CLUSTER_PORT"; }
cluster_size() { echo $((3 * (1 + CLUSTER_REPLICAS))); }
cluster_ports() { seq "$CLUSTER_PORT" $((CLUSTER_PORT + $(cluster_size) - 1)); }
cluster_masters() { seq "$CLUSTER_PORT" $((CLUSTER_PORT + 2)); }

cluster_running() {
  local port dir
  dir=$(cluster_dir)
  for port in $(cluster_ports); do
    alive "$dir/$port/redis.pid" redis-server || return 1
  done
}

# Every node sees the whole cluster as ok, and every replica has caught up with its master.
cluster_ready() {
  local port info
  for port in $(cluster_ports); do
    info=$(redis-cli -h 127.0.0.1 -p "$port" cluster info 2>/dev/null) || return 1
    grep -q 'cluster_state:ok' <<<"$info" || return 1
    grep -q "cluster_known_nodes:$(cluster_size)" <<<"$info" || return 1
    info=$(redis-cli -h 127.0.0.1 -p "$port" info replication 2>/dev/null) || return 1
    if grep -q 'role:slave' <<<"$info"; then
      grep -q 'master_link_status:up' <<<"$info" || return 1
    fi
  done
}

cluster_up() {
  local dir started port ports=() bus=() nodes=()
  dir=$(cluster_dir)
  if [ "$CLUSTER_REPLICAS" != 0 ] && [ "$CLUSTER_REPLICAS" != 1 ]; then
    say "redis-cluster: MEMDIR_REDIS_CLUSTER_REPLICAS must be 0 or 1, not $CLUSTER_REPLICAS"
    return 1
  fi
  if cluster_running; then
    say "redis-cluster already running on 127.0.0.1:$CLUSTER_PORT-$((CLUSTER_PORT + $(cluster_size) - 1))"
    return 0
  fi
  cluster_down # a node or more died: start the whole cluster again
  started=$(date +%s%N)
  for port in $(cluster_ports); do
    ports+=("$port")
    bus+=($((port + 10000)))
    nodes+=("127.0.0.1:$port")
  done
  ports_free redis-cluster MEMDIR_REDIS_CLUSTER_PORT "${ports[@]}" "${bus[@]}" || return 1
  rm -rf "$dir"
  mkdir -p "$dir/log"
  for port in "${ports[@]}"; do
    # A short node timeout makes a failover finish in about a second; CLUSTER FAILOVER (manual)
    # does not depend on it.
    redis_launch "$dir/$port" "$port" --cluster-enabled yes --cluster-config-file "$dir/$port/nodes.conf" \
      --cluster-node-timeout 3000
  done
  for port in "${ports[@]}"; do
    if ! wait_for "redis-cluster node 127.0.0.1:$port" "$dir/$port/log/redis.log" "$dir/$port/redis.pid" \
      redis-server redis_answers "$port"; then
      cluster_down
      return 1
    fi
  done
  # redis-cli makes the first three nodes of the list the masters and gives each one replica.
  if ! redis-cli --cluster create "${nodes[@]}" --cluster-replicas "$CLUSTER_REPLICAS" --cluster-yes \
    >"$dir/log/create.log" 2>&1; then
    say "redis-cluster: redis-cli --cluster create failed; see $dir/log/create.log"
    cluster_down
    return 1
  fi
  if ! wait_for "redis-cluster on 127.0.0.1:$CLUSTER_PORT" "$dir/log/create.log" "" "" cluster_ready; then
    cluster_down
    return 1
  fi
  say "redis-cluster up on 127.0.0.1:${ports[0]}-${ports[-1]} (masters $(cluster_masters | tr '\n' ' ' | sed 's/ $//'), $CLUSTER_REPLICAS replica each) in $(ms_since "$started") ms"
}

cluster_down() {
  local dir port
  dir=$(cluster_dir)
  [ -d "$dir" ] || return 0
  for port in $(ls "$dir"); do
    [ -f "$dir/$port/redis.pid" ] && stop_pid "$dir/$port/redis.pid" redis-server
  done
  clear_data "$dir"
}

cluster_env() {
  local urls=() port
  for port in $(cluster_masters); do urls+=("redis://127.0.0.1:$port"); done
  export_line REDIS_CLUSTER_URLS "$(IFS=,; echo "${urls[*]}")"
}

# --- PostgreSQL ---------------------------------------------------------------------------------

pg_dir() { echo "$ROOT/postgres-$PG_PORT"; }

pg_running() { alive "$(pg_dir)/data/postmaster.pid" postgres; }

pg_up() {
  local dir bin started
  dir=$(pg_dir)
  if pg_running; then
    say "postgres already running on 127.0.0.1:$PG_PORT"
    return 0
  fi
  started=$(date +%s%N)
  bin=$(pg_bindir) || { say "postgres: no initdb under /usr/lib/postgresql/*/bin"; return 1; }
  ports_free postgres MEMDIR_POSTGRES_PORT "$PG_PORT" || return 1
  rm -rf "$dir"
  mkdir -p "$dir/log"
  if is_root; then
    chown -R postgres:postgres "$dir"
    if ! runuser -u postgres -- test -w "$dir"; then
      say "postgres: the postgres user cannot write $dir; set MEMDIR_SERVICES_DIR to a folder every user can reach (under /tmp, say)"
      return 1
    fi
  fi
  if ! as_postgres "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync \
    >"$dir/log/initdb.log" 2>&1; then
    say "postgres: initdb failed; see $dir/log/initdb.log"
    return 1
  fi
  # fsync and friends off: the data is thrown away, and the tests run faster.
  if ! as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/log/postgres.log" -w -t "$TIMEOUT" -o "-p $PG_PORT \
    -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
    -c max_connections=200 -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all" \
    start >"$dir/log/pg_ctl.log" 2>&1 9>&-; then
    say "postgres on 127.0.0.1:$PG_PORT did not start; see $dir/log/postgres.log"
    pg_down
    return 1
  fi
  if ! as_postgres "$bin/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 \
    -c 'CREATE DATABASE memdir' >>"$dir/log/pg_ctl.log" 2>&1 ||
    ! as_postgres "$bin/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d memdir -v ON_ERROR_STOP=1 \
      -c 'CREATE EXTENSION pg_stat_statements' >>"$dir/log/pg_ctl.log" 2>&1; then
    say "postgres: creating the database memdir failed; see $dir/log/pg_ctl.log"
    pg_down
    return 1
  fi
  say "postgres up on 127.0.0.1:$PG_PORT in $(ms_since "$started") ms"
}

pg_down() {
  local dir bin
  dir=$(pg_dir)
  if pg_running && bin=$(pg_bindir); then
    # The data is thrown away next, so nothing needs a clean shutdown.
    as_postgres "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 20 stop >/dev/null 2>&1 || true
  fi
  stop_pid "$dir/data/postmaster.pid" postgres KILL
  clear_data "$dir"
}

pg_env() {
  export_line DATABASE_URL "postgres://postgres@127.0.0.1:$PG_PORT/memdir"
}

# --- S3: radosgw on a single-node Ceph ----------------------------------------------------------

s3_dir() { echo "$ROOT/s3-$S3_PORT"; }

s3_running() {
  local dir
  dir=$(s3_dir)
  alive "$dir/mon.pid" ceph-mon && alive "$dir/osd.pid" ceph-osd && alive "$dir/rgw.pid" radosgw
}

s3_conf() { # DIR FSID
  local dir=$1
  cat <<CONF
[global]
fsid = $2
mon_host = v1:127.0.0.1:$MON_PORT
public_addr = 127.0.0.1
cluster_addr = 127.0.0.1
ms_bind_msgr2 = false
ms_bind_ipv6 = false
# The OSD picks its ports here, below the Redis Cluster's default 7001.
ms_bind_port_min = 6800
ms_bind_port_max = 7000
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
auth_allow_insecure_global_id_reclaim = true
mon_warn_on_insecure_global_id_reclaim_allowed = false
osd_pool_default_size = 1
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
osd_crush_chooseleaf_type = 0
osd_crush_update_on_start = false
osd_class_update_on_start = false
mon_data_avail_warn = 1
mon_data_avail_crit = 0
paxos_propose_interval = 0.05
paxos_min_wait = 0.01
run_dir = $dir/run
log_file = $dir/log/\$name.log
admin_socket = $dir/run/\$name.asok
keyring = $dir/keyring
mon_data = $dir/mon.\$id
osd_data = $dir/osd.\$id
osd_objectstore = memstore
memstore_device_bytes = 2147483648
[client.rgw.memdir]
rgw_frontends = beast endpoint=127.0.0.1:$S3_PORT tcp_nodelay=1
rgw_data = $dir/rgw
rgw_enable_gc_threads = false
rgw_enable_lc_threads = false
rgw_dynamic_resharding = false
CONF
}

s3_answers() { curl -sf -o /dev/null "http://127.0.0.1:$S3_PORT/"; }
osd_up() { ceph --conf "$1" osd stat 2>/dev/null | grep -q ' 1 up'; }

s3_up() {
  local dir conf fsid osd_uuid osd_id started
  dir=$(s3_dir)
  conf=$dir/ceph.conf
  if s3_running; then
    say "s3 (radosgw) already running on 127.0.0.1:$S3_PORT"
    return 0
  fi
  s3_down # a part of it died: start it all again
  started=$(date +%s%N)
  ports_free s3 "MEMDIR_S3_PORT or MEMDIR_CEPH_MON_PORT" "$S3_PORT" "$MON_PORT" || return 1
  rm -rf "$dir"
  mkdir -p "$dir"/{run,log,mon.a,rgw}
  fsid=$(cat /proc/sys/kernel/random/uuid)
  osd_uuid=$(cat /proc/sys/kernel/random/uuid)
  s3_conf "$dir" "$fsid" >"$conf"
  {
    ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *' &&
      ceph-authtool "$dir/keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' \
        --cap mgr 'allow *' &&
      # v1 said outright: monmaptool takes any port but 6789 for msgr2, which is off here, and
      # the OSD then never reaches the monitor.
      monmaptool --create --addv a "[v1:127.0.0.1:$MON_PORT]" --fsid "$fsid" "$dir/monmap" &&
      ceph-mon --conf "$conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/keyring"
  } >"$dir/log/mkfs.log" 2>&1 || {
    say "s3: creating the Ceph monitor failed; see $dir/log/mkfs.log"
    s3_down
    return 1
  }
  launch "$dir/mon.pid" "$dir/log/mon.out" ceph-mon --conf "$conf" -i a -f
  if ! wait_for "s3: Ceph monitor on 127.0.0.1:$MON_PORT" "$dir/log/mon.a.log" "$dir/mon.pid" ceph-mon \
    ceph --conf "$conf" -s --connect-timeout 2; then
    s3_down
    return 1
  fi
  # The OSD is placed in the CRUSH map by hand: its own update on start races its monmap under
  # auth none.
  if ! {
    osd_id=$(ceph --conf "$conf" osd new "$osd_uuid") &&
      ceph --conf "$conf" osd crush add "osd.$osd_id" 1.0 root=default host=localhost &&
      mkdir -p "$dir/osd.$osd_id" &&
      ceph-osd --conf "$conf" -i "$osd_id" --mkfs --osd-uuid "$osd_uuid"
  } >>"$dir/log/mkfs.log" 2>&1; then
    say "s3: creating the Ceph OSD failed; see $dir/log/mkfs.log"
    s3_down
    return 1
  fi
  launch "$dir/osd.pid" "$dir/log/osd.out" ceph-osd --conf "$conf" -i "$osd_id" -f
  if ! wait_for "s3: Ceph OSD" "$dir/log/osd.$osd_id.log" "$dir/osd.pid" ceph-osd osd_up "$conf"; then
    s3_down
    return 1
  fi
  launch "$dir/rgw.pid" "$dir/log/rgw.out" radosgw --conf "$conf" -n client.rgw.memdir -f
  if ! wait_for "s3: radosgw on 127.0.0.1:$S3_PORT" "$dir/log/client.rgw.memdir.log" "$dir/rgw.pid" radosgw \
    s3_answers; then
    s3_down
    return 1
  fi
  if ! {
    radosgw-admin --conf "$conf" user create --uid=memdir --display-name=memdir \
      --access-key="$S3_ACCESS_KEY" --secret="$S3_SECRET_KEY" >/dev/null &&
      curl -sSf -X PUT --aws-sigv4 "aws:amz:$S3_REGION:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" \
        -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "http://127.0.0.1:$S3_PORT/$S3_BUCKET"
  } >>"$dir/log/mkfs.log" 2>&1; then
    say "s3: creating the user or the bucket $S3_BUCKET failed; see $dir/log/mkfs.log"
    s3_down
    return 1
  fi
  say "s3 (radosgw) up on 127.0.0.1:$S3_PORT with bucket $S3_BUCKET in $(ms_since "$started") ms"
}

s3_down() {
  local dir
  dir=$(s3_dir)
  # In-memory Ceph: nothing to flush, so SIGKILL, client first.
  stop_pid "$dir/rgw.pid" radosgw KILL
  stop_pid "$dir/osd.pid" ceph-osd KILL
  stop_pid "$dir/mon.pid" ceph-mon KILL
  clear_data "$dir"
}

s3_env() {
  export_line S3_ENDPOINT "http://127.0.0.1:$S3_PORT"
  export_line S3_REGION "$S3_REGION"
  export_line S3_BUCKET "$S3_BUCKET"
  export_line S3_ACCESS_KEY_ID "$S3_ACCESS_KEY"
  export_line S3_SECRET_ACCESS_KEY "$S3_SECRET_KEY"
  export_line S3_FORCE_PATH_STYLE true
  # For the SDK's default credential and region chain.
  export_line AWS_ACCESS_KEY_ID "$S3_ACCESS_KEY"
  export_line AWS_SECRET_ACCESS_KEY "$S3_SECRET_KEY"
  export_line AWS_REGION "$S3_REGION"
}

# --- commands -----------------------------------------------------------------------------------

fn_prefix() { # SERVICE
  case $1 in
    redis) echo redis ;;
    redis-cluster) echo cluster ;;
    postgres) echo pg ;;
    s3) echo s3 ;;
  esac
}

# Serialises commands on one folder: two test runs starting the same server at once get one server.
take_lock() {
  mkdir -p "$ROOT"
  # The postgres user must be able to reach its folder beneath.
  if is_root; then chmod 755 "$ROOT" 2>/dev/null || true; fi
  exec 9>"$ROOT/.lock"
  if ! flock -w "$((TIMEOUT * 4))" 9; then
    say "another scripts/services.sh holds $ROOT/.lock for too long"
    exit 1
  fi
}

main() {
  local command=${1:-} services=() service status=0
  [ $# -gt 0 ] && shift
  for service in "$@"; do
    case $service in
      all) services+=("${SERVICES[@]}") ;;
      redis | redis-cluster | postgres | s3) services+=("$service") ;;
      *)
        say "unknown service '$service' (expected: ${SERVICES[*]} all)"
        exit 2
        ;;
    esac
  done
  [ ${#services[@]} -gt 0 ] || services=("${SERVICES[@]}")
  case $command in
    install)
      take_lock
      install_packages "${services[@]}"
      ;;
    up)
      take_lock
      install_packages "${services[@]}" || exit 1
      for service in "${services[@]}"; do
        "$(fn_prefix "$service")_up" || {
          say "$service did not start"
          exit 1
        }
      done
      ;;
    down)
      take_lock
      for service in "${services[@]}"; do "$(fn_prefix "$service")_down"; done
      say "stopped ${services[*]}"
      ;;
    env)
      for service in "${services[@]}"; do "$(fn_prefix "$service")_env"; done
      ;;
    status)
      for service in "${services[@]}"; do
        if "$(fn_prefix "$service")_running"; then
          echo "$service: running"
        else
          echo "$service: stopped"
          status=3
        fi
      done
      exit "$status"
      ;;
    *)
      echo "usage: scripts/services.sh up|down|env|status|install [redis|redis-cluster|postgres|s3|all]..." >&2
      exit 2
      ;;
  esac
}

main "$@"
