. "$(dirname "$0")/case.sh"
# PostgreSQL 15 with statement/connection logging; pgbench noise, bad SQL, a deadlock, lock waits, killed clients
D=$W/pg; B=/usr/lib/postgresql/15/bin
[ -f $D/pid ] && kill $(cat $D/pid) 2>/dev/null
rm -rf $D; mkdir -p $D; chown postgres $D
PG() { runuser -u postgres -- "$@"; }
PG $B/initdb -D $D/data -U postgres >/dev/null
cat >> $D/data/postgresql.conf <<CONF
port = 5499
unix_socket_directories = '$D'
listen_addresses = '127.0.0.1'
logging_collector = off
log_line_prefix = '%m [%p] %q%u@%d '
log_statement = 'mod'
log_connections = on
log_disconnections = on
log_lock_waits = on
deadlock_timeout = 300ms
log_checkpoints = on
log_min_duration_statement = 200
log_autovacuum_min_duration = 0
autovacuum_naptime = 2s
CONF
PG $B/pg_ctl -D $D/data -l $D/postgresql.log -w start >/dev/null
head -1 $D/data/postmaster.pid > $D/pid
P="$B/psql -h $D -p 5499 -U postgres -X -q"
PG $B/createdb -h $D -p 5499 -U postgres shop
PG $B/pgbench -h $D -p 5499 -U postgres -i -s 1 shop >/dev/null 2>&1
PG $B/pgbench -h $D -p 5499 -U postgres -c 4 -t 30 shop >/dev/null 2>&1
PG $P shop <<SQL >/dev/null 2>&1
CREATE TABLE orders(id serial primary key, sku text not null, qty int check (qty > 0), customer int);
CREATE UNIQUE INDEX orders_sku_customer ON orders(sku, customer);
INSERT INTO orders(sku, qty, customer) SELECT 'SKU-'||g, g%7+1, g%50 FROM generate_series(1,400) g;
INSERT INTO orders(sku, qty, customer) VALUES ('SKU-1', 3, 1);
INSERT INTO orders(sku, qty, customer) VALUES ('SKU-9999', -2, 4);
INSERT INTO orders(sku, qty, customer) VALUES (NULL, 1, 4);
SELECT * FROM order WHERE id = 1;
SELECT id, skuu FROM orders LIMIT 3;
UPDATE orders SET qty = qty + 'x' WHERE id = 2;
SELECT 1/0;
SELECT pg_sleep(0.4);
DELETE FROM orders WHERE id % 9 = 0;
SQL
# deadlock between two sessions
PG $P shop -c "BEGIN; UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1; SELECT pg_sleep(1); UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 2; COMMIT;" >/dev/null 2>&1 &
sleep 0.3
PG $P shop -c "BEGIN; UPDATE pgbench_accounts SET abalance = abalance - 1 WHERE aid = 2; SELECT pg_sleep(1); UPDATE pgbench_accounts SET abalance = abalance - 1 WHERE aid = 1; COMMIT;" >/dev/null 2>&1 &
wait
# client killed in the middle of a transaction
PG $P shop -c "BEGIN; LOCK TABLE orders; SELECT pg_sleep(30);" >/dev/null 2>&1 & K=$!
sleep 1; PG $P shop -c "SET lock_timeout = '1s'; UPDATE orders SET qty = 5 WHERE id = 3;" >/dev/null 2>&1
pkill -9 -P $K 2>/dev/null; kill -9 $K 2>/dev/null; sleep 0.5
# a backend terminated by an admin, a statement timeout, a wrong password db
PG $P shop -c "SET statement_timeout = '300ms'; SELECT pg_sleep(2);" >/dev/null 2>&1
PG $P shop -c "SELECT pg_sleep(5)" >/dev/null 2>&1 & sleep 0.5
PG $P postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(5)%'" >/dev/null 2>&1; wait
PG $P nosuchdb -c "SELECT 1" >/dev/null 2>&1
$B/psql -h 127.0.0.1 -p 5499 -U nobody -X -c "SELECT 1" shop >/dev/null 2>&1
PG $B/pgbench -h $D -p 5499 -U postgres -c 2 -t 20 shop >/dev/null 2>&1
PG $P shop -c "CHECKPOINT; VACUUM ANALYZE orders;" >/dev/null 2>&1
sleep 3
PG $B/pg_ctl -D $D/data -m fast -w stop >/dev/null
mkcase postgres_stmt_log "cat postgresql.log" $D/postgresql.log
