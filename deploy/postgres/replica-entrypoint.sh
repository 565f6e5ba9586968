#!/bin/sh
# The replica's first start copies the primary (pg_basebackup -R writes standby.signal and the
# connection to stream from) with a replication slot of its own, so the primary keeps the WAL
# it has not received. Later starts find the copy. A replica rebuilt from scratch needs the
# old slot dropped first: SELECT pg_drop_replication_slot('replica1') on the primary.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  gosu postgres env PGPASSWORD="$REPLICATION_PASSWORD" pg_basebackup --host primary \
    --username replicator --pgdata "$PGDATA" --write-recovery-conf --wal-method stream \
    --create-slot --slot replica1 --checkpoint fast
fi
# The image's entrypoint skips initdb on an existing folder and runs postgres as `postgres`.
exec docker-entrypoint.sh postgres -c hot_standby_feedback=on
