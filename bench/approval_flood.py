#!/usr/bin/env python3
"""The approval port under flood and fuzz: what it holds, and what it costs the agent.

Starts the packaged agent with the shipped JVM options (@packaging/jvm.options), the built-in
simulator and a webhook receiver (this script), then runs three phases of --seconds each:
  1. quiet        baseline RSS, file descriptors and webhook deliveries
  2. body flood   --workers threads, each sending unsigned requests back to back, one per connection: mostly
                  63 KiB bodies, mixed with fuzz (70 KiB bodies, chunked bodies past 64 KiB, garbage request
                  lines, unknown paths, huge headers, h2c upgrades)
  3. idle flood   --idle idle connections held open (excess ones are closed by the agent)
and reports per phase: answers/s, answers by status, connections closed by the agent, agent peak RSS and open
files, webhook deliveries (the agent must keep delivering), and that a signed request works afterwards.
Usage: bench/approval_flood.py [--jar PATH] [--seconds 20] [--workers 48] [--idle 3000]
"""
import argparse, collections, hashlib, hmac, os, random, re, socket, sys, tempfile, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECRET = "bench-flood-secret-" + os.urandom(16).hex()
deliveries = [0]


class Webhook(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        deliveries[0] += 1
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def status_of(sock):
    data = b""
    try:
        while b"\r\n" not in data and len(data) < 4096:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        return "closed"
    m = re.match(rb"HTTP/\S+ (\d{3})", data)
    return m.group(1).decode() if m else "closed"


def fuzz_request(rng):
    kind = rng.random()
    if kind < 0.70:   # just under the limit, unsigned: read whole, then 401
        body = os.urandom(63 * 1024)
        return (b"POST /api/v1/approvals HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                b"Content-Length: %d\r\n\r\n" % len(body)) + body
    if kind < 0.78:   # over the limit: 413 from the Content-Length alone
        body = os.urandom(70 * 1024)
        return b"POST /api/v1/approvals HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    if kind < 0.84:   # chunked past the limit: 413 while it arrives
        chunk = os.urandom(16 * 1024)
        return (b"POST /api/v1/approvals HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                + b"".join(b"4000\r\n" + chunk + b"\r\n" for _ in range(5)))
    if kind < 0.88:
        return os.urandom(rng.randint(1, 512)) + b"\r\n\r\n"
    if kind < 0.92:
        return b"GET /" + os.urandom(8).hex().encode() + b" HTTP/1.1\r\nHost: a\r\n\r\n"
    if kind < 0.96:
        return b"GET /api/v1/events HTTP/1.1\r\nHost: a\r\nX-Junk: " + b"x" * 20000 + b"\r\n\r\n"
    return (b"GET /api/v1/events HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
            b"HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n")


def body_flood(port, seconds, workers, counts, lock):
    stop = time.monotonic() + seconds

    def worker(seed):
        rng = random.Random(seed)
        while time.monotonic() < stop:
            payload = fuzz_request(rng)
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                    s.settimeout(5)
                    try:
                        s.sendall(payload)
                    except OSError:
                        pass
                    status = status_of(s)
            except OSError:
                status = "closed"
            with lock:
                counts[status] += 1

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def signed_events(port):
    ts = str(int(time.time()))
    sig = "sha256=" + hmac.new(SECRET.encode(), ts.encode() + b".", hashlib.sha256).hexdigest()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"GET /api/v1/events HTTP/1.1\r\nHost: a\r\nX-Bridge-Timestamp: {ts}\r\n"
                  f"X-Bridge-Signature: {sig}\r\n\r\n".encode())
        return status_of(s)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", default=os.path.join(ROOT, "target", "scheduled-events-bridge.jar"))
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--workers", type=int, default=48)
    parser.add_argument("--idle", type=int, default=3000)
    args = parser.parse_args()
    benchlib.set_label("approval-flood")
    benchlib.install_signal_handlers()

    hook = ThreadingHTTPServer(("127.0.0.1", 0), Webhook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    work = tempfile.mkdtemp(prefix="bench-approval-flood-")
    port = free_port()
    flags = benchlib.agent_jvm_options(benchlib.SHIPPED_JVM_OPTIONS, "")
    agent = benchlib.AgentProcess("flood", "java", args.jar, flags, work, {
        "BRIDGE_SIMULATOR_ENABLED": "true", "BRIDGE_SIMULATOR_SPEED": "120",
        "BRIDGE_APPROVAL_SECRET": SECRET, "BRIDGE_APPROVAL_PORT": str(port), "BRIDGE_MANAGEMENT_PORT": "0",
        "BRIDGE_WEBHOOK_URLS": f"http://127.0.0.1:{hook.server_port}/hook"},
        os.path.join(work, "agent.log"), os.path.join(work, "state"), 20)
    agent.start()
    try:
        deadline = time.monotonic() + 120
        while True:   # the approval port answers a signed request once the agent is up
            try:
                if signed_events(port) == "200":
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise benchlib.Failure("the approval port did not answer; see " + agent.log_path)
            benchlib.pause(0.5, agent)
        rows = []
        for phase in ("quiet", "body flood", "idle flood"):
            counts, lock = collections.Counter(), threading.Lock()
            peak = {"rss": rss_mb(agent.pid), "fds": fds(agent.pid)}
            before = deliveries[0]
            sampling = [True]

            def sample():
                while sampling[0] and agent.alive():
                    peak["rss"] = max(peak["rss"], rss_mb(agent.pid))
                    peak["fds"] = max(peak["fds"], fds(agent.pid))
                    time.sleep(0.2)

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            t0 = time.monotonic()
            held = []
            if phase == "quiet":
                benchlib.pause(args.seconds, agent)
            elif phase == "body flood":
                body_flood(port, args.seconds, args.workers, counts, lock)
            else:
                for _ in range(args.idle):
                    try:
                        held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
                    except OSError:
                        counts["connect failed"] += 1
                benchlib.pause(args.seconds, agent)
                for s in held:
                    s.setblocking(False)
                    try:
                        counts["closed by agent" if s.recv(1) == b"" else "answered"] += 1
                    except BlockingIOError:
                        counts["still open"] += 1
                    except OSError:
                        counts["closed by agent"] += 1
                    s.close()
            elapsed = time.monotonic() - t0
            sampling[0] = False
            sampler.join()
            answered = sum(v for k, v in counts.items() if k.isdigit())
            rows.append((phase, elapsed, answered / elapsed if phase == "body flood" else 0.0, dict(counts),
                         peak["rss"], peak["fds"], deliveries[0] - before, agent.alive()))
            benchlib.progress(f"{phase}: done")
        after = signed_events(port)
        with open("/proc/loadavg") as f:
            load = f.read().split()[:3]
        print(f"Approval port under flood: agent {' '.join(flags)}, {os.cpu_count()} cores, "
              f"load average {' '.join(load)} at the end")
        print(f"{'phase':<11} {'s':>5} {'answers/s':>9} {'peak RSS MB':>11} {'peak fds':>8} {'webhook deliveries':>18}  outcomes")
        for phase, elapsed, rate, counts, rss, nfds, delivered, alive in rows:
            print(f"{phase:<11} {elapsed:5.1f} {rate:9.0f} {rss:11.0f} {nfds:8d} {delivered:18d}  "
                  f"{counts if counts else '-'}{'' if alive else '  AGENT DIED'}")
        print(f"signed GET /api/v1/events afterwards: {after}; agent alive: {agent.alive()}")
    finally:
        agent.stop()
        hook.shutdown()
        benchlib.run_cleanups()


if __name__ == "__main__":
    main()
