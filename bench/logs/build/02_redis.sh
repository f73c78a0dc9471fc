. "$(dirname "$0")/case.sh"
# redis-server at verbose level, clients that connect/disconnect abruptly, bad commands, a bad config reload, BGSAVE to an unwritable dir
D=$W/redis; rm -rf $D; mkdir -p $D/data
cat > $D/redis.conf <<CONF
port 6390
dir $D/data
loglevel verbose
logfile $D/redis.log
save 5 10
maxclients 40
timeout 2
CONF
redis-server $D/redis.conf --daemonize yes --pidfile $D/redis.pid
sleep 1
for i in $(seq 1 60); do redis-cli -p 6390 SET k$i v$i >/dev/null; redis-cli -p 6390 INCR k$i >/dev/null 2>&1; done
# abrupt disconnects and idle clients hitting the timeout
for i in $(seq 1 25); do (exec 3<>/dev/tcp/127.0.0.1/6390; printf 'PING\r\n' >&3; sleep 0.1) ; done
for i in $(seq 1 6); do (exec 3<>/dev/tcp/127.0.0.1/6390; sleep 3) & done; wait
# protocol errors
for i in $(seq 1 8); do (exec 3<>/dev/tcp/127.0.0.1/6390; printf '*1\r\n$-5\r\nGARBAGE\r\n' >&3; printf '*abc\r\n' >&3; sleep 0.2); done
# replicate from a master that is not there, for a while
redis-cli -p 6390 REPLICAOF 127.0.0.1 6399 >/dev/null; sleep 4; redis-cli -p 6390 REPLICAOF NO ONE >/dev/null
# too many clients
for i in $(seq 1 50); do (exec 3<>/dev/tcp/127.0.0.1/6390; sleep 2) & done; wait
redis-cli -p 6390 DEBUG SLEEP 0 >/dev/null
redis-cli -p 6390 CONFIG SET dir /proc/nonexistent >/dev/null 2>&1
redis-cli -p 6390 CONFIG SET maxmemory 1mb >/dev/null
for i in $(seq 1 300); do redis-cli -p 6390 SET big$i "$(head -c 8000 /dev/zero | tr '\0' x)" >/dev/null 2>&1; done
chmod 000 $D/data 2>/dev/null
redis-cli -p 6390 BGSAVE >/dev/null 2>&1; sleep 1
for i in $(seq 1 30); do redis-cli -p 6390 SET after$i x >/dev/null 2>&1; done
sleep 6
redis-cli -p 6390 CONFIG REWRITE >/dev/null 2>&1
redis-cli -p 6390 SHUTDOWN NOSAVE >/dev/null 2>&1; sleep 1
chmod 755 $D/data
mkcase redis_verbose "cat redis.log" $D/redis.log
