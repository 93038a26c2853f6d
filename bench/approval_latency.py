#!/usr/bin/env python3
"""Approval request -> IMDS POST latency on loopback (goal: p99 <= 20 ms).

Starts the packaged agent with the approval API against a scripted IMDS (this script), sends N signed
approvals of a Scheduled event, each with a different body (whitespace varies) so none is a replay,
and measures from sending the request to IMDS receiving the StartRequests POST. The agent runs with the
JVM options it ships with (@packaging/jvm.options, or --argfile; 'none' = the JVM's defaults), then the
flags in BENCH_JAVA_OPTS, which win where both set the same thing.
Usage: bench/approval_latency.py [--jar PATH] [--n 500] [--argfile PATH|none]
"""
import argparse, hashlib, hmac, http.client, json, os, signal, socket, subprocess, sys, tempfile, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

EVENT = "C7061BAC-AFDC-4513-B24B-AA5F13A16123"
DOC = json.dumps({"DocumentIncarnation": 2, "Events": [{
    "EventId": EVENT, "EventStatus": "Scheduled", "EventType": "Freeze", "ResourceType": "VirtualMachine",
    "Resources": ["bench-vm"], "NotBefore": "Mon, 11 Apr 2022 22:26:58 GMT", "Description": "bench",
    "EventSource": "Platform", "DurationInSeconds": 5}]}).encode()
SECRET = b"bench-approval-secret-0123456789abcdef"
arrivals = []            # monotonic times of StartRequests POSTs, in arrival order
polls = [0]              # scheduledevents GETs served
arrived = threading.Condition()


class Imds(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, code, body=b""):
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if "/instance" in self.path:
            self._send(200, b'{"name":"bench-vm","vmId":"1","resourceId":"/x/bench-vm","location":"here"}')
        else:
            self._send(200, DOC)
            with arrived:
                polls[0] += 1
                arrived.notify_all()

    def do_POST(self):
        now = time.monotonic()
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with arrived:
            arrivals.append(now)
            arrived.notify_all()
        self._send(200)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--jar", default=os.path.join(root, "target", "scheduled-events-bridge.jar"))
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--argfile", default=benchlib.SHIPPED_JVM_OPTIONS)
    args = parser.parse_args()

    imds = ThreadingHTTPServer(("127.0.0.1", 0), Imds)
    threading.Thread(target=imds.serve_forever, daemon=True).start()
    port = free_port()
    state = tempfile.mkdtemp(prefix="bench-approval-")
    env = dict(os.environ, BRIDGE_IMDS_URL=f"http://127.0.0.1:{imds.server_port}/metadata/scheduledevents",
               BRIDGE_IMDS_INSTANCE_URL=f"http://127.0.0.1:{imds.server_port}/metadata/instance/compute",
               BRIDGE_STATE_DIR=state, BRIDGE_APPROVAL_SECRET=SECRET.decode(), BRIDGE_APPROVAL_PORT=str(port),
               BRIDGE_MANAGEMENT_PORT=str(free_port()))
    java_opts = benchlib.agent_jvm_options(args.argfile, os.environ.get("BENCH_JAVA_OPTS", ""))
    log = open(os.path.join(state, "agent.log"), "w")
    agent = subprocess.Popen(["java", *java_opts, "-jar", args.jar], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        while True:   # wait until the approval port answers
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or agent.poll() is not None:
                    sys.exit("agent did not open the approval port; see " + log.name)
                time.sleep(0.2)
        with arrived:   # the agent must have recorded the document before it can approve its event
            arrived.wait_for(lambda: polls[0] >= 2, timeout=60)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        latencies = []
        warmup = 100
        for i in range(warmup + args.n):
            body = ('{"EventId":' + " " * (i % 50) + '"' + EVENT + '"' + " " * (i // 50) + "}").encode()
            ts = str(int(time.time()))
            sig = "sha256=" + hmac.new(SECRET, ts.encode() + b"." + body, hashlib.sha256).hexdigest()
            with arrived:
                before = len(arrivals)
            sent = time.monotonic()
            conn.request("POST", "/api/v1/approvals", body, {"X-Bridge-Timestamp": ts, "X-Bridge-Signature": sig,
                                                             "Content-Type": "application/json"})
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                sys.exit(f"approval {i} answered {response.status}")
            with arrived:
                arrived.wait_for(lambda: len(arrivals) > before, timeout=10)
                if len(arrivals) <= before:
                    sys.exit(f"approval {i} never reached IMDS")
                if i >= warmup:
                    latencies.append((arrivals[before] - sent) * 1000)
        latencies.sort()
        pct = lambda p: latencies[min(len(latencies) - 1, int(round(p / 100 * len(latencies) + 0.5)) - 1)]
        print(f"approval -> IMDS POST, N={len(latencies)} after {warmup} warm-up: "
              f"p50 {pct(50):.1f} ms, p90 {pct(90):.1f} ms, p99 {pct(99):.1f} ms, max {latencies[-1]:.1f} ms "
              f"(goal p99 <= 20 ms: {'met' if pct(99) <= 20 else 'missed'})")
    finally:
        agent.send_signal(signal.SIGTERM)
        try:
            agent.wait(20)
        except subprocess.TimeoutExpired:
            agent.kill()
        imds.shutdown()


if __name__ == "__main__":
    main()
