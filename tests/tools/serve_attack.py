#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Attacks on `slideops serve`'s agent endpoints, as tests/integration/serve_hostile_*.sh
and bench/serve run them: on loopback only, each bounded in count and in time. Every
subcommand prints one JSON object on stdout when it ends (and READY-file, when given, is
written once its connections are open).

  amplify PORT CRED MB                 one POST /agent/batch of MB MB of an empty repeated
                                       field (0x32 0x00 ...), credential CRED: its status
  hold-bodies PORT CRED N MB SECONDS [READY]
                                       N connections each sending MB MB of a batch's body
                                       (less two bytes) and holding it for SECONDS
  slow PORT N SECONDS INTERVAL PATH [READY]
                                       N connections that send a whole request header for
                                       PATH (a body of 4000 bytes said), then one byte every
                                       INTERVAL seconds; each reopened when serve drops it
  pollers PORT CRED N SECONDS BODY     N connections re-polling /agent/poll as fast as
                                       answers come, with the message in file BODY
  posts PORT CRED N PATH BODY          N requests to PATH with file BODY, one after another:
                                       the statuses seen and how long they took
  ui PORT TOKEN N [PATH]               N requests to PATH (/api/servers), one at a time:
                                       their statuses and latencies
"""
import asyncio
import json
import resource
import socket
import statistics
import sys
import time

HOST = "127.0.0.1"


def raise_nofile():
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def header(path, length, cred=None, extra=""):
    h = f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/x-protobuf\r\n"
    if cred:
        h += f"Authorization: Bearer {cred}\r\n"
    h += f"Content-Length: {length}\r\n{extra}\r\n"
    return h.encode()


def status_of(data):
    """The status of the first response in data, or 0."""
    try:
        line = data.split(b"\r\n", 1)[0].decode()
        return int(line.split()[1]) if line.startswith("HTTP/") else 0
    except (ValueError, IndexError):
        return 0


def read_response(sock, timeout):
    """One whole response (by Content-Length) from a blocking socket: (status, body)."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return status_of(data), b""
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v.strip())
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return status_of(head), body


def amplify(port, cred, mb):
    n = int(mb) << 20
    sock = socket.create_connection((HOST, int(port)))
    t0 = time.monotonic()
    status, body = 0, b""
    try:
        sock.sendall(header("/agent/batch", n, cred))
        chunk = b"\x32\x00" * (1 << 19)
        sent = 0
        sock.settimeout(120)
        while sent < n:
            sock.sendall(chunk[: min(len(chunk), n - sent)])
            sent += min(len(chunk), n - sent)
        status, body = read_response(sock, 120)
    except OSError:
        # Refused before the body was all sent: the answer may still be there.
        try:
            status, body = read_response(sock, 5)
        except OSError:
            pass
    out = {"status": status, "seconds": round(time.monotonic() - t0, 3),
           "body": body[:300].decode(errors="replace")}
    print(json.dumps(out))


def hold_bodies(port, cred, n, mb, seconds, ready=None):
    raise_nofile()
    length = int(mb) << 20
    socks, statuses = [], {}
    chunk = b"\x0a" * (1 << 20)
    for _ in range(int(n)):
        s = socket.create_connection((HOST, int(port)))
        s.settimeout(30)
        answered = None
        try:
            # As curl sends a large body: the header first, the body after 100 Continue,
            # so a refusal before the body is read whole, never lost to a reset.
            s.sendall(header("/agent/batch", length, cred, "Expect: 100-continue\r\n"))
            s.settimeout(5)
            first = s.recv(4096)
            if status_of(first) != 100:
                answered = status_of(first)
                raise EOFError
            s.settimeout(30)
            sent = 0
            while sent < length - 2:
                k = min(len(chunk), length - 2 - sent)
                s.sendall(chunk[:k])
                sent += k
        except EOFError:
            pass
        except OSError:
            # Refused while the body was sent: its answer came before serve closed the
            # connection; read it now, if the reset has not lost it.
            try:
                s.settimeout(2)
                answered = status_of(s.recv(4096))
            except OSError:
                answered = 0
        socks.append((s, answered))
    if ready:
        open(ready, "w").write("held\n")
    time.sleep(float(seconds))
    for s, answered in socks:
        st = answered
        if st is None:
            try:
                s.setblocking(False)
                st = status_of(s.recv(4096))
            except OSError:
                st = 0
        statuses[str(st)] = statuses.get(str(st), 0) + 1
        s.close()
    print(json.dumps({"statuses": statuses}))


async def slow_one(port, path, deadline, interval, counters):
    while time.monotonic() < deadline:
        try:
            reader, writer = await asyncio.open_connection(HOST, port)
        except OSError:
            counters["refused"] += 1
            await asyncio.sleep(0.5)
            continue
        counters["opened"] += 1
        try:
            writer.write(header(path, 4000))
            await writer.drain()
            while time.monotonic() < deadline:
                try:
                    data = await asyncio.wait_for(reader.read(4096), interval)
                    if data == b"" or data:
                        break  # dropped or answered: reopen
                except asyncio.TimeoutError:
                    writer.write(b"\x0a")
                    await writer.drain()
        except (OSError, ConnectionError):
            pass
        counters["dropped"] += 1
        writer.close()
    return None


async def slow_main(port, n, seconds, interval, path, ready):
    raise_nofile()
    counters = {"opened": 0, "dropped": 0, "refused": 0}
    deadline = time.monotonic() + float(seconds)
    tasks = []
    for i in range(int(n)):
        tasks.append(asyncio.create_task(
            slow_one(int(port), path, deadline, float(interval), counters)))
        if i % 200 == 199:
            await asyncio.sleep(0.05)
    if ready:
        open(ready, "w").write("open\n")
    await asyncio.gather(*tasks)
    print(json.dumps(counters))


async def poller(port, cred, body, deadline, counts):
    while time.monotonic() < deadline:
        try:
            reader, writer = await asyncio.open_connection(HOST, port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        try:
            while time.monotonic() < deadline:
                writer.write(header("/agent/poll", len(body), cred) + body)
                await writer.drain()
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"),
                                              deadline - time.monotonic() + 1)
                st = status_of(head)
                length = 0
                for line in head.split(b"\r\n"):
                    k, _, v = line.partition(b":")
                    if k.strip().lower() == b"content-length":
                        length = int(v.strip())
                if length:
                    await reader.readexactly(length)
                counts[str(st)] = counts.get(str(st), 0) + 1
                if b"connection: close" in head.lower():
                    break
        except (OSError, ConnectionError, asyncio.TimeoutError,
                asyncio.IncompleteReadError):
            pass
        writer.close()


async def pollers_main(port, cred, n, seconds, body_file):
    raise_nofile()
    body = open(body_file, "rb").read()
    counts = {}
    deadline = time.monotonic() + float(seconds)
    await asyncio.gather(*(poller(int(port), cred, body, deadline, counts)
                           for _ in range(int(n))))
    print(json.dumps({"statuses": counts}))


def posts(port, cred, n, path, body_file):
    body = open(body_file, "rb").read()
    counts = {}
    t0 = time.monotonic()
    for _ in range(int(n)):
        s = socket.create_connection((HOST, int(port)))
        s.sendall(header(path, len(body), cred if cred != "-" else None) + body)
        try:
            st, _ = read_response(s, 30)
        except OSError:
            st = 0
        counts[str(st)] = counts.get(str(st), 0) + 1
        s.close()
    print(json.dumps({"statuses": counts, "seconds": round(time.monotonic() - t0, 3)}))


def ui(port, token, n, path="/api/servers"):
    lat, counts = [], {}
    for _ in range(int(n)):
        t0 = time.monotonic()
        st = 0
        try:
            s = socket.create_connection((HOST, int(port)), timeout=60)
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n"
                      f"Authorization: Bearer {token}\r\nConnection: close\r\n\r\n".encode())
            st, _ = read_response(s, 60)
            s.close()
        except OSError:
            pass
        lat.append(time.monotonic() - t0)
        counts[str(st)] = counts.get(str(st), 0) + 1
    lat.sort()
    print(json.dumps({"statuses": counts, "median_ms": round(statistics.median(lat) * 1000, 2),
                      "max_ms": round(lat[-1] * 1000, 2),
                      "p99_ms": round(lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000, 2)}))


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    if cmd == "amplify":
        amplify(*args)
    elif cmd == "hold-bodies":
        hold_bodies(*args)
    elif cmd == "slow":
        asyncio.run(slow_main(*args[:5], args[5] if len(args) > 5 else None))
    elif cmd == "pollers":
        asyncio.run(pollers_main(*args))
    elif cmd == "posts":
        posts(*args)
    elif cmd == "ui":
        ui(*args)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
