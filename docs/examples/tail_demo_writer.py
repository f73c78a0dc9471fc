#!/usr/bin/env python
"""Writes the service log of the "A real run" example in docs/tail.md, in real time.

    python docs/examples/tail_demo_writer.py app.log

Three bursts of 300 HTTP access lines, each with 6 heartbeats, about 2.6 s apart; 0.3 s after the
second burst, an error with its traceback. 923 lines in about 3.5 s. Seeded: the bytes are the same
on every run (only the timing of the writes varies).
"""

from __future__ import annotations

import random
import sys
import time
from datetime import datetime, timedelta, timezone

START = datetime(2024, 5, 1, 10, 0, 0, tzinfo=timezone.utc)
ERROR = (
    b"%s ERROR PaymentService line 421: charge failed for order 88412\n"
    b"Traceback (most recent call last):\n"
    b'  File "payments/charge.py", line 421, in charge\n'
    b"    raise CardDeclined(code)\n"
    b"payments.errors.CardDeclined: 51 insufficient funds\n"
)


def stamp(ms: int) -> bytes:
    return (START + timedelta(milliseconds=ms)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3].encode() + b"Z"


def burst(rnd: random.Random, first: int, seq: int, worker: int) -> list[bytes]:
    """300 access lines, one millisecond apart, and a heartbeat after every 50th."""
    lines = []
    for i, n in enumerate(range(first, first + 300)):
        item, ms = rnd.randint(1000, 9999), rnd.randint(8, 45)
        lines.append(b"%s INFO  http GET /api/v1/items/%d 200 %dms\n" % (stamp(n), item, ms))
        if i % 50 == 0:
            lines.append(b"%s DEBUG worker-%d heartbeat seq=%d\n" % (stamp(n), worker, seq + i))
    return lines


def main(path: str) -> None:
    rnd = random.Random(421)
    with open(path, "ab", buffering=0) as log:
        for i, (first, seq, worker) in enumerate([(1, 1, 2), (5301, 301, 2), (10601, 601, 1)]):
            for line in burst(rnd, first, seq, worker):
                log.write(line)
                time.sleep(0.002)  # about 0.6 s a burst
            if i == 1:
                time.sleep(0.3)  # shorter than idle_ms: the error joins the second burst's window
                log.write(ERROR % stamp(17311))
            if i < 2:
                time.sleep(1.0)  # longer than idle_ms: the window closes


if __name__ == "__main__":
    main(sys.argv[1])
