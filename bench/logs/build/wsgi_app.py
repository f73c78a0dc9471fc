"""Small WSGI inventory service used to produce gunicorn logs."""
import json, logging, time, random
log = logging.getLogger("gunicorn.error")
DB = {i: {"id": i, "name": f"widget-{i}"} for i in range(1, 150)}

def app(environ, start):
    path, method = environ["PATH_INFO"], environ["REQUEST_METHOD"]
    if path.startswith("/widgets/"):
        wid = int(path.rsplit("/", 1)[1])   # ValueError on /widgets/abc
        w = DB.get(wid)
        if w is None:
            start("404 Not Found", [("Content-Type", "application/json")])
            return [b'{"error":"no such widget"}']
        start("200 OK", [("Content-Type", "application/json")])
        return [json.dumps(w).encode()]
    if path == "/export":
        time.sleep(float(environ.get("QUERY_STRING", "s=0.1").split("=")[1]))
        start("200 OK", [("Content-Type", "text/csv")])
        return [b"id,name\n"]
    if path == "/health":
        start("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]
    if path == "/config":
        return [open("/etc/inventory/settings.json").read().encode()]  # FileNotFoundError
    start("404 Not Found", [("Content-Type", "text/plain")])
    return [b"not found"]
