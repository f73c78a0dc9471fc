. "$(dirname "$0")/case.sh"
# tornado (logging=debug) chat API under mixed load: 404s, 405s, bad JSON, KeyError, ZeroDivisionError
cd "$(dirname "$0")"
$W/venv/bin/python tornado_app.py 8704 > $W/tornado.log 2>&1 & T=$!; sleep 1.5
$W/venv/bin/python tornado_load.py 8704
kill -TERM $T; wait $T
mkcase tornado_app_log "cat tornado.log" $W/tornado.log
