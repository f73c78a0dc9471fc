. "$(dirname "$0")/case.sh"
# nginx (error_log info, logfmt-style access log) proxying to gunicorn sync workers (timeout 2s);
# bugs raise, slow exports hit the worker timeout and nginx's read timeout, a worker is SIGKILLed,
# gunicorn is reloaded (HUP), then stopped while nginx keeps getting traffic (connect() refused -> 502)
cd "$(dirname "$0")"; B=$PWD; D=$W/ngx; rm -rf $D; mkdir -p $D/logs $D/tmp
cat > $D/nginx.conf <<CONF
worker_processes 2;
error_log $D/logs/error.log info;
pid $D/nginx.pid;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $D/tmp; proxy_temp_path $D/tmp; fastcgi_temp_path $D/tmp; uwsgi_temp_path $D/tmp; scgi_temp_path $D/tmp;
  log_format kv 'time=\$time_iso8601 remote=\$remote_addr method=\$request_method uri="\$request_uri" status=\$status bytes=\$body_bytes_sent rt=\$request_time urt=\$upstream_response_time ua="\$http_user_agent"';
  upstream inv { server 127.0.0.1:8703 max_fails=3 fail_timeout=2s; }
  server {
    listen 8702;
    access_log $D/logs/access.log kv;
    location /static/ { root $D/www; }
    location / { proxy_pass http://inv; proxy_read_timeout 1500ms; proxy_connect_timeout 1s; }
  }
}
CONF
nginx -c $D/nginx.conf -p $D
$W/venv/bin/gunicorn wsgi_app:app --chdir $B -b 127.0.0.1:8703 -w 3 --timeout 2 --graceful-timeout 2 \
   --access-logfile - --error-logfile - --log-level info > $W/gunicorn.log 2>&1 &
G=$!; sleep 2
P='/widgets/{i},/widgets/{i},/widgets/{i},/health,/widgets/abc,/export?s=0.05,/export?s=3,/config,/static/app.js,/nope'
$W/venv/bin/python loadgen.py 127.0.0.1 8702 240 "$P"
kill -9 $(pgrep -P $G | head -1); sleep 1
kill -HUP $G; sleep 2
$W/venv/bin/python loadgen.py 127.0.0.1 8702 160 "$P"
kill -TERM $G; wait $G
$W/venv/bin/python loadgen.py 127.0.0.1 8702 40 "$P"
nginx -c $D/nginx.conf -p $D -s quit; sleep 1
mkcase gunicorn_sync_log "cat gunicorn.log" $W/gunicorn.log
mkcase nginx_proxy_error_log "cat error.log" $D/logs/error.log
mkcase nginx_kv_access_log "cat access.log" $D/logs/access.log
