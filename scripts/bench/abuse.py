#!/usr/bin/env python3
"""Abuse test of `quantir serve` on loopback: slowloris connections, batch clients that never read
their answers, and normal clients searching, all at once; then SIGTERM.

usage: abuse.py QUANTIR_BIN INDEX CLAIMS_JSONL OUT_JSON [--seconds 30] [--slowloris 600] [--stalled-batches 520] [--clients 16]

Slowloris connections trickle a header line every 2 s and reconnect when closed; stalled batch
clients post a 200-line batch and never read; normal clients post /api/search (k=10) in a loop.
Reports the normal requests' statuses and latency percentiles (200s and 503s apart), the server's
peak RSS, how often attackers were disconnected, and how long SIGTERM took.
"""

import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import http.client

args = sys.argv[1:]
binary, index, claims_path, out = args[:4]
opt = lambda name, default: int(args[args.index(name) + 1]) if name in args else default
SECONDS, SLOWLORIS, STALLED, CLIENTS = opt("--seconds", 30), opt("--slowloris", 600), opt("--stalled-batches", 520), opt("--clients", 16)

server = subprocess.Popen([binary, "serve", "--index", index, "--addr", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
first = server.stderr.readline()
host, port = first.split("http://")[1].strip().rstrip("/").split(":")
port = int(port)
claims = [json.loads(line)["text"] for line in open(claims_path)]
deadline = time.time() + SECONDS
disconnects = {"slowloris": 0, "batch": 0}
peak_rss = [0]


def rss_sampler():
    while time.time() < deadline:
        try:
            for line in open(f"/proc/{server.pid}/status"):
                if line.startswith("VmRSS:"):
                    peak_rss[0] = max(peak_rss[0], int(line.split()[1]) // 1024)
        except OSError:
            pass
        time.sleep(0.5)


async def slowloris():
    while time.time() < deadline:
        try:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")
            await writer.drain()
            while time.time() < deadline:
                await asyncio.sleep(2)
                writer.write(b"X-a: b\r\n")
                await writer.drain()
                if reader.at_eof():
                    break
        except (OSError, ConnectionError):
            pass
        disconnects["slowloris"] += 1
        await asyncio.sleep(0.1)


BATCH = "\n".join(json.dumps({"claim": claims[i % len(claims)], "k": 100}) for i in range(200)).encode()


async def stalled_batch():
    while time.time() < deadline:
        try:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(b"POST /api/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nContent-Length: %d\r\n\r\n" % len(BATCH) + BATCH)
            await writer.drain()
            # Never read: wait until the server gives up on us.
            while time.time() < deadline and not reader.at_eof():
                await asyncio.sleep(1)
                try:
                    writer.write(b"")
                    await writer.drain()
                except (OSError, ConnectionError):
                    break
        except (OSError, ConnectionError):
            pass
        disconnects["batch"] += 1
        await asyncio.sleep(0.1)


def attackers():
    async def main():
        await asyncio.gather(*[slowloris() for _ in range(SLOWLORIS)], *[stalled_batch() for _ in range(STALLED)])

    asyncio.run(main())


results = []


def client(n):
    conn = None
    i = n
    while time.time() < deadline:
        body = json.dumps({"claim": claims[i % len(claims)], "k": 10})
        i += CLIENTS
        started = time.perf_counter()
        try:
            if conn is None:
                conn = http.client.HTTPConnection(host, port, timeout=10)
            conn.request("POST", "/api/search", body, {"Content-Type": "application/json"})
            response = conn.getresponse()
            response.read()
            results.append((response.status, (time.perf_counter() - started) * 1e3, response.getheader("Retry-After")))
        except (OSError, http.client.HTTPException) as e:
            results.append((f"error {type(e).__name__}", (time.perf_counter() - started) * 1e3, None))
            conn = None


threads = [threading.Thread(target=attackers, daemon=True), threading.Thread(target=rss_sampler, daemon=True)]
for t in threads:
    t.start()
time.sleep(3)  # let the attackers connect first
workers = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
for w in workers:
    w.start()
for w in workers:
    w.join()
started = time.time()
server.send_signal(signal.SIGTERM)
try:
    code = server.wait(timeout=60)
except subprocess.TimeoutExpired:
    server.kill()
    code = "killed after 60 s"
sigterm_seconds = time.time() - started


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))] if values else None


ok = [ms for status, ms, _ in results if status == 200]
busy = [r for r in results if r[0] == 503]
other = [r for r in results if r[0] not in (200, 503)]
report = {
    "seconds": SECONDS, "slowloris": SLOWLORIS, "stalled_batches": STALLED, "clients": CLIENTS,
    "requests": len(results), "ok": len(ok), "busy_503": len(busy), "busy_with_retry_after": sum(1 for r in busy if r[2]),
    "other": len(other), "other_examples": [str(r[0]) for r in other[:5]],
    "ok_p50_ms": percentile(ok, 50), "ok_p99_ms": percentile(ok, 99), "ok_max_ms": max(ok) if ok else None,
    "peak_rss_mb": peak_rss[0], "attacker_disconnects": disconnects, "sigterm_seconds": sigterm_seconds, "exit": code,
}
json.dump(report, open(out, "w"), indent=1)
print(json.dumps(report, indent=1))
