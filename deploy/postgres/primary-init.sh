#!/bin/sh
# Runs once, on the primary's first start (an empty data folder): the service's role and
# database, and a role the replica copies and streams with.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v oracle_password="$ORACLE_DB_PASSWORD" -v replication_password="$REPLICATION_PASSWORD" <<'SQL'
CREATE ROLE oracle LOGIN PASSWORD :'oracle_password';
CREATE DATABASE oracle OWNER oracle;
CREATE ROLE replicator REPLICATION LOGIN PASSWORD :'replication_password';
SQL
# The image's pg_hba.conf lets passwords in for databases, not for replication.
echo "host replication replicator all scram-sha-256" >> "$PGDATA/pg_hba.conf"
