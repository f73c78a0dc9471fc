"""Hammer a local HTTP server with a mix of good, bad and abruptly cut requests."""
import http.client, json, random, socket, sys, threading, time

host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
paths = sys.argv[4].split(",") if len(sys.argv) > 4 else None

def one(rng):
    r = rng.random()
    c = http.client.HTTPConnection(host, port, timeout=5)
    try:
        if paths:
            c.request("GET", rng.choice(paths).replace("{i}", str(rng.randint(1, 230))))
        elif r < 0.55:
            c.request("GET", f"/items/{rng.randint(1, 230)}")
        elif r < 0.75:
            body = json.dumps({"item": rng.randint(1, 199), "qty": rng.randint(1, 9)})
            c.request("POST", "/orders", body, {"Content-Type": "application/json"})
        elif r < 0.80:
            c.request("POST", "/orders", "{not json", {"Content-Type": "application/json"})
        elif r < 0.85:
            c.request("GET", f"/report?cat={rng.randint(0, 10)}")
        elif r < 0.90:
            c.request("GET", f"/slow?s={rng.choice([0.1, 0.3, 3])}")
        elif r < 0.95:
            c.request("DELETE", "/items/3")
        else:
            s = socket.create_connection((host, port)); s.sendall(b"GET /items/1 HTTP/1.1\r\nHo"); s.close(); return
        c.getresponse().read()
    except Exception as e:
        pass
    finally:
        c.close()

def worker(seed, k):
    rng = random.Random(seed)
    for _ in range(k):
        one(rng)

ts = [threading.Thread(target=worker, args=(i, n // 4)) for i in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
