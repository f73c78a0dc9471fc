#!/bin/bash
# Rebuild the fresh service-log corpus in /tmp/logs-fresh (work files in /tmp/lfb).
# Needs: redis-server, postgres 15 (/usr/lib/postgresql/15/bin), nginx, java 17, node/npm, python3.
set -u
cd "$(dirname "$0")/build"
mkdir -p /tmp/lfb
[ -x /tmp/lfb/venv/bin/python ] || python3 -m venv /tmp/lfb/venv
/tmp/lfb/venv/bin/pip install -q uvicorn starlette celery redis gunicorn tornado packaging
for s in 01_apt_dpkg.sh 02_redis.sh 03_postgres.sh 04_npm.sh 05_uvicorn.sh 06_gunicorn_nginx.sh \
         07_celery.sh 08_tornado.sh 09_java_jul.sh 10_pino.sh; do
  echo "== $s"; timeout 400 bash "$s"
done
