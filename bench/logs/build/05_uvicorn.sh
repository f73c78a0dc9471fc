. "$(dirname "$0")/case.sh"
# uvicorn (debug) serving a starlette app under mixed load; a bug raises ZeroDivisionError, bad JSON raises, clients cut requests
cd "$(dirname "$0")"; B=$PWD
$W/venv/bin/uvicorn asgi_app:app --app-dir $B --port 8701 --log-level debug --timeout-graceful-shutdown 1 > $W/uvicorn.log 2>&1 &
U=$!; sleep 2
$W/venv/bin/python loadgen.py 127.0.0.1 8701 700
kill -INT $U; wait $U
mkcase uvicorn_starlette_log "cat uvicorn.log" $W/uvicorn.log
