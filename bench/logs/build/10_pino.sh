. "$(dirname "$0")/case.sh"
# node http service logging JSON lines with pino + pino-http (needs 04_npm.sh's node_modules)
cd "$(dirname "$0")"; cp pino_app.js $W/node/; cd $W/node
npm install pino pino-http --no-audit --no-fund >/dev/null 2>&1
node pino_app.js > $W/cart-api.log 2>&1 & N=$!; sleep 1
$W/venv/bin/python "$OLDPWD/loadgen.py" 127.0.0.1 8706 200 '/carts/c{i},/carts/c{i},/pricing,/nope' 
$W/venv/bin/python - <<'PY'
import http.client, json, random
rng = random.Random(2)
for i in range(220):
    c = http.client.HTTPConnection("127.0.0.1", 8706, timeout=3)
    body = json.dumps({"sku": f"S{rng.randint(1,90)}", "price": rng.randint(1, 99), "qty": rng.randint(1, 3)}) if rng.random() > 0.1 else "{oops"
    c.request("POST", f"/carts/c{rng.randint(1, 30)}", body); c.getresponse().read(); c.close()
PY
$W/venv/bin/python "$OLDPWD/loadgen.py" 127.0.0.1 8706 120 '/carts/c{i},/pricing'
kill -TERM $N; wait $N
mkcase node_pino_jsonl_log "cat cart-api.log" $W/cart-api.log
