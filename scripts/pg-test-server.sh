#!/usr/bin/env bash
# pg-test-server.sh start DIR | stop DIR: a private PostgreSQL 15 for the tests, in DIR (its data,
# log and Unix socket; nothing else on the machine is touched, no TCP port). The tests connect to
# postgresql://feedctl@/DBNAME?host=DIR. scripts/test.sh starts one for the whole run and exports
# FEEDCTL_TEST_PG=DIR; a test process started without it (swift test by hand) starts its own.
# fsync is off: these databases are thrown away (a crash test must turn it back on).
set -euo pipefail
action=${1:?usage: pg-test-server.sh start|stop DIR}
dir=${2:?usage: pg-test-server.sh start|stop DIR}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "pg-test-server: no PostgreSQL server installed (apt-get install postgresql; scripts/install-deps.sh does)" >&2; exit 1; }
# The server refuses to run as root: as root it runs as the postgres user the package made.
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case "$action" in
start)
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -A trust -U feedctl -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 start \
        -o "-k $dir -c listen_addresses='' -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=300" >/dev/null \
        || { tail -20 "$dir/log" >&2; exit 1; }
    ;;
stop)
    [ -d "$dir/data" ] && as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    ;;
*) echo "pg-test-server: start or stop, not $action" >&2; exit 2 ;;
esac
