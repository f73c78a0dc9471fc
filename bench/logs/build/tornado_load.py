"""Mixed client load for the tornado app."""
import http.client, json, random, sys, socket
port = int(sys.argv[1]); rng = random.Random(11)
for i in range(900):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=3)
    r = rng.random(); room = rng.choice(["general", "random", "general", "ops"])
    try:
        if r < 0.5: c.request("GET", f"/rooms/{room}")
        elif r < 0.8:
            text = "x" * rng.choice([5, 12, 60])
            c.request("POST", f"/rooms/{room}", json.dumps({"text": text}))
        elif r < 0.85: c.request("POST", f"/rooms/{room}", "text=hello")
        elif r < 0.9: c.request("GET", "/stats")
        elif r < 0.95: c.request("PUT", f"/rooms/{room}", "{}")
        else: c.request("GET", "/../../etc/passwd")
        c.getresponse().read()
    except Exception:
        pass
    c.close()
