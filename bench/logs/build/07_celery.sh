. "$(dirname "$0")/case.sh"
# celery worker (prefork, 2 procs) on a local redis broker: tasks succeed, retry, raise, hit time limits;
# the broker is restarted under the worker, then the worker gets a warm shutdown
cd "$(dirname "$0")"; B=$PWD; D=$W/celery; rm -rf $D; mkdir -p $D
redis-server --port 6391 --dir $D --save '' --daemonize yes --pidfile $D/r.pid --logfile $D/r.log; sleep 0.5
cd $B; $W/venv/bin/celery -A celery_tasks worker -c 2 -n worker1@buildhost --loglevel INFO -E --without-gossip > $W/celery.log 2>&1 &
C=$!; sleep 5
$W/venv/bin/python - <<'PY'
import random
from celery_tasks import render, charge, reconcile, export_ledger
rng = random.Random(3)
for i in range(160):
    render.delay(i)
    if i % 2 == 0: charge.delay(i, round(rng.uniform(5, 500), 2))
    if i % 15 == 0: reconcile.delay({"EUR": [1, 2], "USD": [0]})
    if i % 17 == 0: reconcile.delay({"USD": [3]})
    if i % 40 == 0: export_ledger.delay(0.1 if i % 80 else 2)
PY
sleep 12
kill $(cat $D/r.pid); sleep 4
redis-server --port 6391 --dir $D --save '' --daemonize yes --pidfile $D/r.pid --logfile $D/r.log; sleep 6
$W/venv/bin/python -c "
from celery_tasks import render, charge
for i in range(300, 330): render.delay(i); charge.delay(i, 9.5)
"
sleep 5
kill -TERM $C; wait $C
kill $(cat $D/r.pid)
mkcase celery_worker_log "cat celery.log" $W/celery.log
