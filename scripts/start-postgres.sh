#!/usr/bin/env bash
# Starts Debian's PostgreSQL 15 on 127.0.0.1:5432 with user postgres / password postgres, and
# PgBouncer in transaction mode on 127.0.0.1:6432 in front of it. Idempotent. Needs root.
set -euo pipefail

if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ ! -d /usr/lib/postgresql/15 ]; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql-15
fi
if ! pg_lsclusters -h | grep -q '^15 *main'; then
  pg_createcluster 15 main
fi
pg_ctlcluster 15 main start || true
for _ in $(seq 1 30); do
  pg_isready -h 127.0.0.1 -p 5432 -q && break
  sleep 1
done
pg_isready -h 127.0.0.1 -p 5432
su postgres -c "psql -q -c \"ALTER USER postgres PASSWORD 'postgres'\""

if [ "${THREADWISE_SKIP_PGBOUNCER:-}" != "1" ]; then
  if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y pgbouncer
  fi
  dir=/tmp/threadwise-pgbouncer
  mkdir -p "$dir"
  cat > "$dir/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=5432

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = 6432
auth_type = plain
auth_file = $dir/users.txt
pool_mode = transaction
max_client_conn = 200
default_pool_size = 10
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
unix_socket_dir =
INI
  echo '"postgres" "postgres"' > "$dir/users.txt"
  chown -R postgres "$dir"
  if ! pg_isready -h 127.0.0.1 -p 6432 -q 2>/dev/null; then
    su postgres -s /bin/bash -c "/usr/sbin/pgbouncer -d $dir/pgbouncer.ini"
  fi
  for _ in $(seq 1 15); do
    pg_isready -h 127.0.0.1 -p 6432 -q && break
    sleep 1
  done
fi
echo "postgres ready on 127.0.0.1:5432"
