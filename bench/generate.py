"""Deterministic generators of large realistic inputs for the benchmarks (log, JSON, diff)."""

from __future__ import annotations

import json
import random


def make_log(target_bytes: int, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    templates = [
        lambda: b"INFO  [http-nio-8080-exec-%d] c.a.api.RequestLogger - GET /api/orders/%d 200 %dms" % (rng.randint(1, 64), rng.randint(1, 10**6), rng.randint(1, 900)),
        lambda: b"DEBUG [pool-3-thread-%d] c.a.cache.Cache - hit key=session:%08x" % (rng.randint(1, 16), rng.getrandbits(32)),
        lambda: b"INFO  [scheduler-1] c.a.jobs.Heartbeat - heartbeat ok seq=%d" % rng.randint(1, 10**9),
        lambda: b"INFO  [http-nio-8080-exec-%d] c.a.api.RequestLogger - POST /api/payments 201 %dms" % (rng.randint(1, 64), rng.randint(5, 2000)),
        lambda: b"DEBUG [db-pool-%d] c.a.db.Pool - acquired connection %d/%d" % (rng.randint(1, 8), rng.randint(1, 50), 50),
    ]
    out = []
    size = 0
    n = 0
    while size < target_bytes:
        n += 1
        ts = b"2026-08-16 %02d:%02d:%02d.%03d " % ((n // 3600000) % 24, (n // 60000) % 60, (n // 1000) % 60, n % 1000)
        if n % 5000 == 0:
            line = ts + b"ERROR [http-nio-8080-exec-7] c.a.pay.PaymentService - line 421: upstream timeout after 30000ms"
        elif n % 1777 == 0:
            line = ts + b"WARN  [db-pool-2] c.a.db.Pool - slow query took %dms" % rng.randint(1000, 9000)
        elif n % 3001 == 0:
            line = ts + b"INFO  [main] c.a.Config - reloaded config generation %d with %d feature flags" % (n, rng.randint(1, 99))
        else:
            line = ts + rng.choice(templates)()
        out.append(line)
        size += len(line) + 1
    return b"\n".join(out) + b"\n"


def make_json(target_bytes: int, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    items = []
    size = 0
    i = 0
    while size < target_bytes:
        i += 1
        item = {
            "id": i, "status": rng.choice(["ok", "ok", "ok", "failed"]), "amount": rng.randint(1, 10**5),
            "telemetry": {"spans": [{"name": f"span{j}", "duration_us": rng.randint(1, 10**6)} for j in range(5)]},
            "debug": {"host": f"node-{rng.randint(1, 99)}", "trace_id": f"{rng.getrandbits(64):016x}"},
            "padding_1": "x" * 40, "padding_2": "y" * 40,
        }
        text = json.dumps(item, indent=2)
        items.append(text)
        size += len(text) + 2
    return ('{"id": "batch-1", "status": "partial", "items": [\n' + ",\n".join(items) + "\n]}\n").encode()


def make_diff(target_bytes: int, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    out = []
    size = 0
    f = 0
    while size < target_bytes:
        f += 1
        name = f"src/module{f // 10}/File{f}.php"
        block = [f"diff --git a/{name} b/{name}", f"index {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644",
                 f"--- a/{name}", f"+++ b/{name}"]
        line_no = 1
        for _h in range(rng.randint(1, 4)):
            line_no += rng.randint(10, 200)
            body = [f" {'    ' * rng.randint(0, 3)}$value{rng.randint(1, 999)} = $this->compute({rng.randint(1, 99)});" for _ in range(rng.randint(6, 30))]
            pos = rng.randint(3, len(body) - 3)
            body[pos:pos] = [f"-        return $old{rng.randint(1, 99)};", f"+        return $new{rng.randint(1, 99)};"]
            block.append(f"@@ -{line_no},{len(body) - 1} +{line_no},{len(body) - 1} @@ class File{f}")
            block.extend(body)
        text = "\n".join(block) + "\n"
        out.append(text)
        size += len(text)
    return "".join(out).encode()
