#!/usr/bin/env python3
"""Benchmark harness for scheduled-events-bridge (python3 stdlib only).

The harness plays both ends of the agent over loopback:
  * a scripted IMDS whose Scheduled Events document it replaces at chosen moments, and which
    records the StartRequests (approval) POSTs it receives, and
  * a webhook receiver that timestamps (time.monotonic()) every CloudEvent the agent POSTs,
and runs the packaged agent jar as a subprocess against them, with the JVM options it ships with
(`@packaging/jvm.options`, or --argfile) followed by those in BENCH_JAVA_OPTS (added, or overriding
the file's where both set the same thing: java takes the last). Agent runs:

  run A  poll interval 1000 ms : start-to-first-poll, change->webhook latency
  run B  poll interval  200 ms : start-to-first-poll, change->webhook latency
         (A and B: with the stalls of the state directory's disk during the changes, bench/diskwatch.py: the
         state is forced to disk before a change is dispatched)
  run D  poll interval 1000 ms, auto-approval of user-initiated events: user event->StartRequests POST
  run C  poll interval 1000 ms : start-to-first-poll, one event delivered, then an unchanged document:
                                 idle CPU (window from 60 s uptime), steady RSS (median of 1 s VmRSS samples
                                 at 60-150 s uptime), heap; then the 1000-event document, and (not timed)
                                 the per-event order of its events' Scheduled, Started, Completed webhooks
  run E  poll interval 1000 ms : steady RSS as in run C with Event Hubs, email and the approval API too
  bench/approval_latency.py    : remote approval request -> StartRequests POST (its own agent)

Side by side, in the same run and against the same scripted IMDS, the baseline: the seeds' own
Python sample (bench/baseline/seed001_sample.py, Microsoft's doc sample, which polls once per
second with sleep(1) and "delivers" by print()ing the event's Description). It runs as
`python3 -u`, a feeder thread answers its input() menu with "1" lines, a reader thread timestamps
each stdout line. Baseline runs: S1 latency (change->printed line), S2 user event->StartRequests
POST, S3 idle CPU, steady RSS, 1000-event document (->all 1000 lines printed), over the same windows as run C. Every scripted event puts
its EventId into its Description ("... [<EventId>]", constant over the event's life) so that a
printed line names its event; all events are Reboots (the sample prints Platform Reboots, but
approves short Freezes instead of printing them). Agent and baseline runs alternate, so that both
meet the same machine: A, S1, B, D, S2, C, S3, E, then bench/approval_latency.py. --quick shortens the
windows of C, S3 and E (idle CPU and RSS at 20-40 s uptime); the summary says so.

The Markdown report (also written to --out) starts with today's figures (bench/summary.py: agent and sample side
by side, the load average over the run; the table BENCHMARKS.md shows first), then the detailed table, with one
column for the agent and one for the baseline, a goal and a verdict per row.
Exit status is non-zero when any measurement could not be completed. Progress goes to stderr, the
report to stdout.

Every wait is a Condition/Event wait with a timeout (no sleep loops), every loop is bounded in
count and time, and every subprocess/server is torn down in finally/atexit.
"""

import argparse
import collections
import datetime as dt
import hashlib
import hmac
import json
import os
import platform
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

WEBHOOK_SECRET = "bench-secret"          # messages are signed, as in production (HMAC per message)
VM_NAME = "bench-vm"
COMPUTE = json.dumps({
    "name": VM_NAME,
    "vmId": "8d4f0c2e-0b6a-4c1e-9d3e-000000000001",
    "resourceId": "/subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/bench-vm",
    "location": "westeurope",
}).encode()

# Hard ceilings, so that no phase can hang the benchmark.
FIRST_POLL_TIMEOUT_S = 120     # JVM + Camel start on a slow 2-core box is a few seconds; be generous
WARMUP_POLLS = 5
CHANGE_TIMEOUT_S = 10          # per change, as specified
MAX_CONSECUTIVE_TIMEOUTS = 3   # the agent is stuck: stop that measurement instead of waiting 10 s × N
IDLE_MIN_UPTIME_S = 20        # the earliest idle window (JIT activity fades with uptime); default 60, --quick 20
BURST_EVENTS = 1000
BURST_TIMEOUT_S = 300
STOP_GRACE_S = 15
GLOBAL_DEADLINE_S = 75 * 60    # the whole benchmark, whatever happens (a full run takes ~27 min)
APPROVAL_API_TIMEOUT_S = 300   # bench/approval_latency.py, JVM start included

# The baseline: the seeds' Python sample (see the module docstring).
BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
SEED_SCRIPT = os.path.join(BENCH_DIR, "baseline", "seed001_sample.py")
APPROVAL_SCRIPT = os.path.join(BENCH_DIR, "approval_latency.py")
CDS_SCRIPT = os.path.join(os.path.dirname(BENCH_DIR), "bin", "create-cds-archive")
SEED_PERIOD_S = 1.0            # the sample's sleep(1): it cannot poll faster
SEED_MAX_LINES = 1_000_000     # bound of the stdout reader loop
SEED_MAX_FEEDS = 1_000_000     # bound of the stdin feeder loop

# Wall clock ↔ monotonic offset, taken once: agent log timestamps are wall clock (UTC, ms).
_WALL_MINUS_MONO = time.time() - time.monotonic()
sys.path.insert(0, BENCH_DIR)
import benchlib  # noqa: E402  (next to this script)
import summary as todays  # noqa: E402  (today's figures; `summary` below is a percentile string)
from diskwatch import DiskWatch  # noqa: E402
from benchlib import (progress, register_cleanup, run_cleanups, pause, cpu_ticks, jcmd_path, pct,  # noqa: E402
                      snapshot_jar, Failure as BenchFailure, STARTED as _STARTED, SHUTDOWN as _SHUTDOWN)

benchlib.set_label("bench")


def wait_until(cond, pred, timeout, agent, what):
    """benchlib.wait_until, bounded also by the whole benchmark's deadline."""
    return benchlib.wait_until(cond, pred, timeout, agent, what, check=check_deadline)


def check_deadline():
    if _SHUTDOWN.is_set():
        raise BenchFailure("interrupted")
    if time.monotonic() - _STARTED > GLOBAL_DEADLINE_S:
        raise BenchFailure(f"global deadline of {GLOBAL_DEADLINE_S} s exceeded")




# ---------------------------------------------------------------------------------------------
# HTTP plumbing shared by both servers
# ---------------------------------------------------------------------------------------------
class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 keep-alive, like the real IMDS and a real webhook: the agent's pooled connections
    # are reused, so we measure the agent, not TCP connection set-up. Every answer has a length.
    protocol_version = "HTTP/1.1"

    def log_message(self, *_args):  # silence per-request stderr lines
        pass

    def _send(self, status, body=b"", content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def _read_body(self):
        return benchlib.read_body(self)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A peer stopped by SIGTERM in the middle of a keep-alive connection resets it: expected.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def _start_server(handler_cls, owner, name):
    server = _Server(("127.0.0.1", 0), handler_cls)
    server.owner = owner
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                              name=name, daemon=True)
    thread.start()

    def stop():
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    register_cleanup(stop)
    return server


# ---------------------------------------------------------------------------------------------
# Scripted IMDS
# ---------------------------------------------------------------------------------------------
def scheduled_event(event_id, source="Platform", status="Scheduled"):
    """One small IMDS event in the shape of Azure's doc (api-version 2020-07-01).

    A Reboot, for the agent and the baseline alike: the seed sample print()s Platform Reboots (its
    only "delivery"), approves User events (source="User") and would approve a 5 s Freeze instead of
    printing it. The EventId is in the Description, so that a line the sample prints names its
    event; the Description is constant over the event's life (the agent sees no Rescheduled). A Started
    event has an empty NotBefore, as IMDS sends it."""
    description = ("Virtual machine is going to be restarted as requested by authorized user."
                   if source == "User" else "Host server is undergoing maintenance.")
    return {
        "EventId": event_id,
        "EventType": "Reboot",
        "ResourceType": "VirtualMachine",
        "Resources": [VM_NAME],
        "EventStatus": status,
        "NotBefore": formatdate(time.time() + 900, usegmt=True) if status == "Scheduled" else "",  # RFC 1123
        "Description": f"{description} [{event_id}]",
        "EventSource": source,
        "DurationInSeconds": -1,   # "unknown or not applicable", as IMDS sends it for a Reboot
    }


def new_event_id():
    return str(uuid.uuid4()).upper()


class _ImdsHandler(_Handler):
    def do_GET(self):
        t = time.monotonic()
        imds = self.server.owner
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        # The real IMDS refuses requests without "Metadata: true" (SSRF protection) or api-version.
        if self.headers.get("Metadata", "").lower() != "true" or "api-version" not in query:
            imds.note_rejected(t)
            return self._send(400, b'{"error":"Bad request. Required metadata header not specified"}')
        if url.path == "/metadata/scheduledevents":
            return self._send(200, imds.serve_document(t))
        if url.path == "/metadata/instance/compute":
            imds.note_instance_get(t)
            return self._send(200, COMPUTE)
        imds.note_rejected(t)
        return self._send(404, b'{"error":"Not found"}')

    def do_POST(self):
        """Approvals: POST /metadata/scheduledevents {"StartRequests":[{"EventId":"…"}, …]}."""
        body = self._read_body()
        t = time.monotonic()  # arrival = whole request read
        imds = self.server.owner
        url = urlsplit(self.path)
        if (url.path != "/metadata/scheduledevents" or self.headers.get("Metadata", "").lower() != "true"
                or "api-version" not in parse_qs(url.query)):
            imds.note_rejected(t)
            return self._send(400, b'{"error":"Bad request"}')
        try:
            ids = [str(r["EventId"]).upper() for r in json.loads(body)["StartRequests"]]
        except (ValueError, KeyError, TypeError):
            ids = None
        if not ids:
            imds.note_rejected(t)
            return self._send(400, b'{"error":"Bad request. StartRequests expected"}')
        imds.note_start_requests(ids, t)
        self._send(200)


class ScriptedImds:
    """Serves a document the harness controls and remembers when each version was first served."""

    def __init__(self):
        self.cond = threading.Condition()
        self.incarnation = 0
        self._body = self._encode(0, [])
        self.polls = []              # monotonic time of every scheduledevents GET
        self.polls_incarnation = []  # incarnation served by each of them
        self.first_served = {}       # incarnation -> monotonic time it was first handed out
        self.first_get = None        # first GET of any kind (instance metadata or events)
        self.instance_gets = 0
        self.rejected = 0
        self.start_requests = {}     # EventId -> monotonic arrival of its first StartRequests POST
        self.start_request_posts = 0
        self.start_request_repeats = 0  # EventIds approved again
        self.server = _start_server(_ImdsHandler, self, "scripted-imds")
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    @staticmethod
    def _encode(incarnation, events):
        return json.dumps({"DocumentIncarnation": incarnation, "Events": events},
                          separators=(",", ":")).encode()

    def set_events(self, events):
        """Replaces the document (next incarnation); returns the monotonic time of the swap.

        Taken inside the lock, so no poll can be served the new document 'before' the change."""
        with self.cond:
            self.incarnation += 1
            self._body = self._encode(self.incarnation, events)
            t = time.monotonic()
            self.cond.notify_all()
            return self.incarnation, t

    def serve_document(self, t):
        with self.cond:
            self.polls.append(t)
            self.polls_incarnation.append(self.incarnation)
            self.first_served.setdefault(self.incarnation, t)
            if self.first_get is None:
                self.first_get = t
            self.cond.notify_all()
            return self._body

    def note_instance_get(self, t):
        with self.cond:
            self.instance_gets += 1
            if self.first_get is None:
                self.first_get = t
            self.cond.notify_all()

    def note_rejected(self, t):
        with self.cond:
            self.rejected += 1
            if self.first_get is None:
                self.first_get = t
            self.cond.notify_all()

    def note_start_requests(self, event_ids, t):
        with self.cond:
            self.start_request_posts += 1
            for event_id in event_ids:
                if event_id in self.start_requests:
                    self.start_request_repeats += 1
                else:
                    self.start_requests[event_id] = t
            self.cond.notify_all()

    def reset_counters(self):
        """Fresh bookkeeping for the next agent/baseline run (the document itself is reset too)."""
        with self.cond:
            self.incarnation = 0
            self._body = self._encode(0, [])
            self.polls, self.polls_incarnation, self.first_served = [], [], {}
            self.first_get, self.instance_gets, self.rejected = None, 0, 0
            self.start_requests, self.start_request_posts, self.start_request_repeats = {}, 0, 0


# ---------------------------------------------------------------------------------------------
# Webhook receiver
# ---------------------------------------------------------------------------------------------
class _WebhookHandler(_Handler):
    def do_POST(self):
        body = self._read_body()
        t = time.monotonic()  # arrival = whole request read
        self.server.owner.record(t, body, self.headers)
        self._send(200)


class WebhookReceiver:
    def __init__(self):
        self.cond = threading.Condition()
        self.arrivals = {}       # (eventId, transition) -> first arrival (monotonic)
        self.count = 0
        self.duplicates = 0
        self.bad_signatures = 0
        self.unparsable = 0
        self.server = _start_server(_WebhookHandler, self, "webhook")
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def record(self, t, body, headers):
        ts = headers.get("X-Bridge-Timestamp", "")
        expected = "sha256=" + hmac.new(WEBHOOK_SECRET.encode(), ts.encode() + b"." + body,
                                        hashlib.sha256).hexdigest()
        signed_ok = hmac.compare_digest(expected, headers.get("X-Bridge-Signature", ""))
        try:
            data = json.loads(body)["data"]
            key = (data["eventId"], data["transition"])
        except (ValueError, KeyError, TypeError):
            key = None
        with self.cond:
            self.count += 1
            if not signed_ok:
                self.bad_signatures += 1
            if key is None:
                self.unparsable += 1
            elif key in self.arrivals:
                self.duplicates += 1
            else:
                self.arrivals[key] = t
            self.cond.notify_all()

    def reset_counters(self):
        with self.cond:
            self.arrivals = {}
            self.count = self.duplicates = self.bad_signatures = self.unparsable = 0


# ---------------------------------------------------------------------------------------------
# The agent process
# ---------------------------------------------------------------------------------------------
class Agent(benchlib.AgentProcess):
    def __init__(self, name, java, jar, java_opts, workdir, env_extra, state_parent=None):
        # Fresh state per run. Normally next to the logs (a disk: fsync costs what it costs);
        # --state-parent /dev/shm takes fsync out of the picture, to see how much of the latency it is.
        state_dir = tempfile.mkdtemp(prefix=f"state-{name}-", dir=state_parent or workdir)
        register_cleanup(lambda: shutil.rmtree(state_dir, ignore_errors=True))
        super().__init__(name, java, jar, java_opts, workdir, env_extra,
                         os.path.join(workdir, f"agent-{name}.log"), state_dir, STOP_GRACE_S)


# ---------------------------------------------------------------------------------------------
# The baseline process: the seeds' Python sample (bench/baseline/seed001_sample.py)
# ---------------------------------------------------------------------------------------------
_SEED_EVENT_ID = re.compile(r"\[([0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12})\]")
_SEED_PROCESSED = re.compile(r"Processed events from document: (\S+)")


class SeedSample:
    """`python3 -u seed001_sample.py` against the scripted IMDS, with two helper threads:

    * a reader that timestamps (time.monotonic()) every stdout line as it arrives and notes the
      EventIds it names (the sample "delivers" an event by print()ing its Description, which the
      scripted documents end with "[<EventId>]") and its "Processed events from document: N" lines;
    * a feeder that answers the sample's input() menu: each "1" runs advanced_sample() once (poll
      with sleep(1) until DocumentIncarnation changes, handle that document, return). It keeps one
      "1" spare in the pipe, so the sample never waits for the harness between two documents.

    It offers what wait_until()/pause()/first_poll() use of an Agent (name, proc, pid, t_spawn,
    alive(), log_tail(), stop())."""

    def __init__(self, name, python, workdir, imds_url):
        self.name = f"seed-{name}"
        self.cmd = [python, "-u", SEED_SCRIPT]
        self.workdir = workdir
        self.stdout_path = os.path.join(workdir, f"{self.name}.stdout.log")   # timestamped transcript
        self.stderr_path = os.path.join(workdir, f"{self.name}.stderr.log")
        env = {k: v for k, v in os.environ.items() if k.lower() not in
               ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "requests_ca_bundle")}
        env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"  # as on a VM: IMDS bypasses proxies
        env["SEED_IMDS_URL"] = imds_url
        self.env = env
        self.cond = threading.Condition()
        self.printed = {}      # EventId -> monotonic time of the first stdout line naming it
        self.processed = []    # (DocumentIncarnation as printed, monotonic time)
        self.lines = 0
        self.eof = False
        self._ones_sent = 0
        self._stopping = False
        self._stdin_lock = threading.Lock()
        self.proc = None
        self.t_spawn = None
        self.exit_code = None
        self._threads = []

    def start(self):
        err = open(self.stderr_path, "wb")
        try:
            self.t_spawn = time.monotonic()
            self.proc = subprocess.Popen(self.cmd, cwd=self.workdir, env=self.env, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=err, start_new_session=True)
        finally:
            err.close()
        register_cleanup(self.stop)
        for target, what in ((self._read, "reader"), (self._feed, "feeder")):
            thread = threading.Thread(target=target, name=f"{self.name}-{what}", daemon=True)
            thread.start()
            self._threads.append(thread)
        progress(f"baseline {self.name} started, pid {self.proc.pid}, output {self.stdout_path}")

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def _read(self):
        """Buffered readline returns as soon as a whole line is in the pipe (no waiting for a full
        buffer); the time is taken right after it. input()'s prompt has no final newline, so the
        next printed line starts with its last blank: names are searched anywhere in the line."""
        with open(self.stdout_path, "w") as transcript:
            for _ in range(SEED_MAX_LINES):  # bounded
                line = self.proc.stdout.readline()
                t = time.monotonic()
                if not line:
                    break
                text = line.decode("utf-8", errors="replace")
                with self.cond:
                    self.lines += 1
                    for m in _SEED_EVENT_ID.finditer(text):
                        self.printed.setdefault(m.group(1), t)
                    m = _SEED_PROCESSED.search(text)
                    if m:
                        self.processed.append((m.group(1), t))
                    self.cond.notify_all()
                transcript.write(f"{(t - self.t_spawn) * 1000:12.1f} ms  {text.rstrip()}\n")
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def _feed(self):
        """One "1" in use, one spare: sent = documents processed + 2."""
        for _ in range(SEED_MAX_FEEDS):  # bounded; each turn sends a line or waits ≤ 0.5 s
            with self.cond:
                ready = self.cond.wait_for(lambda: self._stopping or self.eof
                                           or self._ones_sent < len(self.processed) + 2, timeout=0.5)
                if self._stopping or self.eof or _SHUTDOWN.is_set():
                    return
                if not ready:
                    continue
                self._ones_sent += 1
            try:
                with self._stdin_lock:
                    self.proc.stdin.write(b"1\n")
                    self.proc.stdin.flush()
            except (OSError, ValueError):  # the sample is gone (broken pipe) or being stopped
                return

    def stop(self):
        """SIGTERM (CPython's default action: exit at once), then SIGKILL. Idempotent."""
        if self.proc is None or self.exit_code is not None:
            return self.exit_code
        with self.cond:
            self._stopping = True
            self.cond.notify_all()
        self.exit_code = benchlib.terminate(self.proc, STOP_GRACE_S, self.name)
        with self._stdin_lock:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        for thread in self._threads:
            thread.join(timeout=5)
        self.proc.stdout.close()
        return self.exit_code

    def stderr_lines(self):
        try:
            with open(self.stderr_path, "r", errors="replace") as f:
                return [ln.rstrip() for ln in f if ln.strip()]
        except OSError:
            return []

    def log_tail(self, lines=15):
        out = []
        try:
            with open(self.stdout_path, "r", errors="replace") as f:
                out = f.readlines()[-lines:]
        except OSError:
            pass
        return "".join(out) + "stderr: " + " ¦ ".join(self.stderr_lines()[-lines:])


def seed_preflight(python):
    """(python version, requests version) of the interpreter that runs the sample, or BenchFailure."""
    try:
        proc = subprocess.run([python, "-c", "import sys, requests; print(sys.version.split()[0], "
                               "requests.__version__)"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BenchFailure(f"cannot run {python}: {e}")
    if proc.returncode != 0:
        raise BenchFailure(f"the baseline needs the 'requests' module for {python} (Debian: apt-get install "
                           f"python3-requests): {proc.stderr.strip().splitlines()[-1:]}")
    if not os.path.isfile(SEED_SCRIPT):
        raise BenchFailure(f"baseline script missing: {SEED_SCRIPT}")
    return tuple(proc.stdout.split()[:2])


# ---------------------------------------------------------------------------------------------
# /proc and jcmd probes
# ---------------------------------------------------------------------------------------------
CLK_TCK = os.sysconf("SC_CLK_TCK")


def thread_ticks(pid):
    """{thread name: utime+stime ticks} over all threads (same-named threads summed)."""
    out = {}
    task_dir = f"/proc/{pid}/task"
    for tid in os.listdir(task_dir):
        try:
            with open(f"{task_dir}/{tid}/stat") as f:
                stat = f.read()
        except OSError:  # thread ended meanwhile
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        name = re.sub(r"#\d+$", "#n", name)  # 'GC Thread#0', 'GC Thread#1' ... grouped
        fields = stat[stat.rindex(")") + 2:].split()
        out[name] = out.get(name, 0) + int(fields[11]) + int(fields[12])
    return out


def system_busy_ticks():
    """(busy, steal) clock ticks of the whole machine since boot, from the 'cpu' line of /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = v
    return user + nice + system + irq + softirq, steal


def own_ticks():
    """CPU of the harness itself (its threads: servers, waits), excluding children."""
    t = os.times()
    return (t.user + t.system) * CLK_TCK


class Background:
    """CPU used by *other* processes (e.g. a concurrent mvn build) while a phase runs.

    Machine busy time minus the agent's and the harness's own, in % of one core (the machine has
    nproc × 100 %). Anything well above a few % means the latency figures are contaminated."""

    def __init__(self, agent_pid=None):
        self.agent_pid = agent_pid
        self.t0 = time.monotonic()
        self.busy0, self.steal0 = system_busy_ticks()
        self.own0 = own_ticks()
        self.agent0 = self._agent()

    def _agent(self):
        try:
            return cpu_ticks(self.agent_pid) if self.agent_pid else 0
        except OSError:  # agent gone
            return 0

    def result(self):
        """(other processes % of one core, steal % of one core)."""
        wall = max(time.monotonic() - self.t0, 1e-3)
        busy, steal = system_busy_ticks()
        agent = self._agent() - self.agent0 if self.agent_pid else 0
        other = busy - self.busy0 - max(agent, 0) - (own_ticks() - self.own0)
        return max(other, 0) / CLK_TCK / wall * 100, (steal - self.steal0) / CLK_TCK / wall * 100

    def text(self):
        other, steal = self.result()
        return f"{other:.0f} % of one core busy in other processes, steal {steal:.1f} %"


def wait_for_quiet(report, max_wait_s, threshold_pct, what):
    """Bounded wait until other processes use < threshold_pct of one core over a 3 s window, so a
    concurrent build does not end up in the figures. Proceeds anyway (with a note) after max_wait_s."""
    if max_wait_s <= 0:
        return
    deadline = time.monotonic() + max_wait_s
    other = None
    for _ in range(int(max_wait_s // 3) + 1):  # bounded: one 3 s window per iteration
        probe = Background()
        pause(3)
        other, _ = probe.result()
        if other < threshold_pct:
            return
        if time.monotonic() >= deadline:
            break
        progress(f"machine busy ({other:.0f} % of one core in other processes): waiting before {what}")
    report.notes.append(f"{what}: machine still busy after waiting {max_wait_s} s "
                        f"({other:.0f} % of one core in other processes); measured anyway")


def memory_status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "Threads"):
                out[key] = int(value.split()[0])
    return out


Steady = collections.namedtuple("Steady", "idle_from idle_window rss_from rss_to")
Steady.__doc__ = """The unchanged-document phase of runs C, E and S3, in s of uptime: idle CPU over
[idle_from, idle_from + idle_window], VmRSS sampled until rss_to, its figure taken over [rss_from, rss_to]."""


class RssSampler:
    """VmRSS of a process once a second, from construction to stop(), in a thread: [(uptime s, KiB)].
    Reading /proc/PID/status costs the process itself nothing."""

    def __init__(self, proc):
        self.proc = proc
        self.samples = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"rss-{proc.name}", daemon=True)
        self._thread.start()
        register_cleanup(self.stop)

    def _run(self):
        for _ in range(24 * 3600):  # bounded: one sample a second
            try:
                kib = memory_status(self.proc.pid)["VmRSS"]
            except (OSError, KeyError):  # the process is gone
                return
            self.samples.append((time.monotonic() - self.proc.t_spawn, kib))
            if self._stop.wait(1.0):
                return

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=5)

    def steady(self, lo, hi, delivered_at):
        """{"median", "max" (MiB), "n", "from", "to"} of the samples at lo..hi s of uptime taken after the first
        delivery (delivered_at s), or None."""
        values = [kib / 1024 for up, kib in self.samples if lo <= up <= hi and up >= delivered_at]
        if not values:
            return None
        return {"median": statistics.median(values), "max": max(values), "n": len(values), "from": lo, "to": hi}


def pause_until_uptime(proc, uptime_s):
    pause(uptime_s - (time.monotonic() - proc.t_spawn), proc)


def log_has(proc, text):
    try:
        with open(proc.log_path, "r", errors="replace") as f:
            return any(text in line for line in f)
    except OSError:
        return False


def heap_info(jcmd, pid):
    """(heap used MiB, heap committed MiB, metaspace used MiB) from GC.heap_info, or None.

    Generation lines look like 'def new generation   total 9792K, used 5432K [...' (Serial),
    'garbage-first heap   total 260096K, used 23552K [...' (G1), 'PSYoungGen total ..' (Parallel);
    summing every 'total NK, used MK' covers all collectors and excludes Metaspace."""
    if not jcmd:
        return None
    try:
        out = subprocess.run([jcmd, str(pid), "GC.heap_info"], capture_output=True, text=True,
                             timeout=30).stdout
    except (subprocess.TimeoutExpired, OSError):
        return None
    pairs = re.findall(r"total (\d+)K, used (\d+)K", out)
    if not pairs:
        return None
    meta = re.search(r"Metaspace\s+used (\d+)K", out)
    return (sum(int(u) for _, u in pairs) / 1024, sum(int(t) for t, _ in pairs) / 1024,
            int(meta.group(1)) / 1024 if meta else None)


def effective_jvm_flags(java, java_opts):
    """GC and heap sizing the JVM actually picks for these flags on this machine.

    A separate `java -XX:+PrintFlagsFinal -version` also validates the argfile and BENCH_JAVA_OPTS up front."""
    proc = subprocess.run([java, *java_opts, "-XX:+PrintFlagsFinal", "-version"],
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise BenchFailure(f"the JVM refuses the agent's options {java_opts}: {proc.stderr.strip()[:400]}")
    flags = {}
    for line in proc.stdout.splitlines():
        m = re.match(r"\s*\S+\s+(\w+)\s+:?=\s+(\S+)", line)
        if m:
            flags[m.group(1)] = m.group(2)
    gc = next((g for g in ("UseSerialGC", "UseParallelGC", "UseG1GC", "UseZGC", "UseShenandoahGC",
                           "UseEpsilonGC") if flags.get(g) == "true"), "?")
    mib = lambda k: f"{int(flags[k]) // (1024 * 1024)} MiB" if k in flags else "?"
    return (f"{gc.replace('Use', '')}, InitialHeapSize {mib('InitialHeapSize')}, "
            f"MaxHeapSize {mib('MaxHeapSize')}, TieredStopAtLevel {flags.get('TieredStopAtLevel', '?')}")


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------
def fmt_ms(v):
    return f"{v:.0f}" if v >= 10 else f"{v:.1f}"


MS4 = "ms (p50 / p90 / p99 / max)"


def summary(values):
    return " / ".join(fmt_ms(pct(values, p)) for p in (50, 90, 99)) + f" / {fmt_ms(max(values))}"


# ---------------------------------------------------------------------------------------------
# Agent log: when did the agent log each transition ('... transitions - Scheduled Freeze <id> ...')
# ---------------------------------------------------------------------------------------------
_LOG_LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[,.]\d{3})Z?\s+\S+\s+\[[^\]]*\]\s+transitions - "
                       r"(\w+) \S+ ([0-9A-Fa-f-]{36})")


def transition_log_times(log_path):
    """(eventId, transition) -> monotonic time of the agent's log line (ms resolution, wall clock)."""
    times = {}
    try:
        with open(log_path, "r", errors="replace") as f:
            for line in f:
                m = _LOG_LINE.match(line)
                if m:
                    wall = dt.datetime.strptime(m.group(1).replace(",", "."), "%Y-%m-%dT%H:%M:%S.%f") \
                        .replace(tzinfo=dt.timezone.utc).timestamp()
                    times.setdefault((m.group(3), m.group(2)), wall - _WALL_MINUS_MONO)
    except OSError:
        pass
    return times


def log_problems(log_path):
    """Count of WARN/ERROR lines, and the first few of them."""
    lines = []
    try:
        with open(log_path, "r", errors="replace") as f:
            lines = [ln.rstrip() for ln in f if re.search(r"Z (WARN|ERROR) ", ln)]
    except OSError:
        pass
    return len(lines), lines[:3]


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------
# Labels of baseline figures for when the agent's row is missing (its run failed early).
BASE_LABELS = {
    "start": "1. Start to first poll", "start_events": "1b. spawn → first Scheduled Events GET",
    "lat1000": "2. Change → delivered @ 1000 ms polling", "lat1000_wait": "2b. ↳ change → next poll that served it",
    "lat1000_work": "2c. ↳ that poll → delivered", "lat1000_period": "2f. observed poll period",
    "lat1000_bg": "2g. background load", "lat1000_sanity": "2h. sanity",
    "lat200": "3. Change → delivered @ 200 ms polling",
    "idle": "4. Idle CPU @ 1 Hz polling", "idle_threads": "4b. idle CPU by thread",
    "rss": "5. RSS steady", "heap": "5b. Heap",
    "burst": "6. 1000-event document → all delivered", "burst_rate": "6b. deliveries/s",
    "burst_bg": "6c. background load during the burst", "rss_burst": "6d. RSS / peak RSS after the burst",
    "burst_order": "6e. per-event order", "burst_sanity": "6f. sanity", "rss_all": "5c. RSS steady, all sinks",
    "autoapprove": "7. User-initiated event → StartRequests POST",
    "autoapprove_wait": "7b. ↳ change → next poll that served it", "autoapprove_work": "7c. ↳ that poll → POST",
    "autoapprove_bg": "7e. background load", "autoapprove_sanity": "7f. sanity",
    "approval_api": "8. Remote approval request → StartRequests POST", "eventhubs": "9. Event Hubs throughput",
}


class Report:
    """Rows of the agent's figures, each optionally keyed; the baseline's figures are attached to the
    row with the same key (one column further right), or get a row of their own if it has none."""

    def __init__(self):
        self.rows = []       # (label, N, unit, result, goal, verdict, key)
        self.baseline = {}   # key -> (text, ok or None, label for a row of its own)
        self.failures = []
        self.notes = []
        self.sections = []   # extra markdown blocks (breakdowns)
        self.raw = {}        # raw samples, written next to the report as JSON
        self.figures = {}    # the figures of the summary table (bench/summary.py)

    def row(self, label, n, unit, result, goal="—", ok=None, key=None):
        verdict = "—" if ok is None else ("✅ met" if ok else "❌ missed")
        self.rows.append((label, str(n), unit, result, goal, verdict, key))

    def fail(self, label, reason, key=None):
        first_line = str(reason).splitlines()[0] if str(reason) else repr(reason)
        self.failures.append(f"{label}: {reason}")
        self.rows.append((label, "—", "—", f"**FAILED**: {first_line}", "—", "❌ not measured", key))

    def base(self, key, text, ok=None, label=None):
        """The baseline's figure for the row `key` (label: used only if no agent row has that key)."""
        self.baseline[key] = (text, ok, label)

    def base_fail(self, keys, label, reason):
        """A baseline measurement failed: its cells say so, and the run's exit status is non-zero."""
        first_line = str(reason).splitlines()[0] if str(reason) else repr(reason)
        self.failures.append(f"baseline {label}: {reason}")
        for key in keys:
            self.baseline[key] = (f"**FAILED**: {first_line}", False, f"{label} (baseline)")

    def table(self):
        """Rendered rows (label, N, unit, agent, baseline, goal, verdict), in figure-number order."""
        used, out = set(), []
        for label, n, unit, result, goal, verdict, key in self.rows:
            text, ok = "—", None
            if key is not None and key in self.baseline:
                text, ok, _ = self.baseline[key]
                used.add(key)
            if ok is not None:
                verdict = f"{verdict} · seed {'✅' if ok else '❌'}"
            out.append((label, n, unit, result, text, goal, verdict))
        for key, (text, ok, label) in self.baseline.items():
            if key not in used:
                out.append((label or BASE_LABELS.get(key, key), "—", "—", "—", text, "—",
                            "—" if ok is None else f"seed {'✅ met' if ok else '❌'}"))

        def number(r):  # '2b. …' -> 2; rows keep their order within a figure
            m = re.match(r"(\d+)", r[0])
            return int(m.group(1)) if m else 99
        return sorted(out, key=number)


def timed_changes(title, imds, proc, n_changes, period_s, rng, make_events, arrival, settle=None):
    """The change loop of every latency figure, for the agent and the baseline alike.

    Per change: a uniformly random pause within one poll period (random phase against the poller's
    timer), a new document with one new event (the previous one is dropped), then arrival(eventId,
    no) -> monotonic arrival time or None after CHANGE_TIMEOUT_S, then settle(previous eventId,
    eventId, no) for whatever must land before the next change (not timed).
    Returns ([(no, eventId, incarnation, t_change, t_arrival)], number of timeouts)."""
    samples, timeouts, consecutive, previous = [], 0, 0, None
    for i in range(n_changes):
        check_deadline()
        pause(rng.uniform(0, period_s), proc)
        event_id = new_event_id()
        incarnation, t_change = imds.set_events(make_events(event_id))
        t_arrival = arrival(event_id, i + 1)
        if t_arrival is not None:
            samples.append((i + 1, event_id, incarnation, t_change, t_arrival))
            consecutive = 0
        else:
            timeouts += 1
            consecutive += 1
            progress(f"{title}: change {i + 1}: nothing within {CHANGE_TIMEOUT_S} s")
            if consecutive >= MAX_CONSECUTIVE_TIMEOUTS:
                raise BenchFailure(f"{consecutive} consecutive changes timed out; log tail:\n{proc.log_tail()}")
        if settle is not None:
            settle(previous, event_id, i + 1)
        previous = event_id
        if (i + 1) % 25 == 0:
            progress(f"{title}: {i + 1}/{n_changes}")
    return samples, timeouts


def arrival_in(cond, table, proc, what):
    """An arrival() for timed_changes: waits until table()[key] exists (the dict guarded by cond;
    table is a getter, since reset_counters() replaces the dicts)."""
    def arrival(key, no):
        if wait_until(cond, lambda: key in table(), CHANGE_TIMEOUT_S, proc, f"{what} of change {no}"):
            with cond:
                return table()[key]
        return None
    return arrival


def wait_poll_split(imds, samples):
    """(change -> first poll that served the new document, that poll -> arrival), in ms."""
    wait_poll, after_poll = [], []
    for _, _, inc, t_change, t_arr in samples:
        t_poll = imds.first_served.get(inc)
        if t_poll is not None:
            wait_poll.append((t_poll - t_change) * 1000)
            after_poll.append((t_arr - t_poll) * 1000)
    return wait_poll, after_poll


def poll_gaps(imds):
    gaps = [(b - a) * 1000 for a, b in zip(imds.polls, imds.polls[1:])]
    return (len(gaps), f"{statistics.fmean(gaps):.1f} / {fmt_ms(pct(gaps, 99))} / {fmt_ms(max(gaps))}") \
        if gaps else (0, "n/a")


def change_latency_run(report, imds, hook, mkagent, interval_ms, n_changes, rng, label_no):
    """Runs an agent at `interval_ms` and measures change -> webhook latency over n_changes."""
    title = f"Change → webhook latency @ {interval_ms} ms polling"
    agent = mkagent(f"poll{interval_ms}", {"BRIDGE_IMDS_POLL_INTERVAL": str(interval_ms)})
    wait_for_quiet(report, report.quiet_wait, report.quiet_threshold, f"run poll{interval_ms}")
    imds.reset_counters()
    hook.reset_counters()
    agent.start()
    try:
        first_poll(report, imds, agent)
        if not wait_until(imds.cond, lambda: len(imds.polls) >= WARMUP_POLLS, 30 + WARMUP_POLLS * interval_ms / 1000,
                          agent, "warm-up polls"):
            raise BenchFailure(f"fewer than {WARMUP_POLLS} polls during warm-up")
        progress(f"{title}: warm-up done, {n_changes} changes")
        background = Background(agent.pid)
        disk = DiskWatch(agent.state_dir).start()

        def settle(previous, _event_id, no):
            # Dropping the previous event yields a Cancelled transition; let it land too, so that
            # the next change starts from an empty delivery lane (not measured).
            if previous is not None:
                prev_key = (previous, "Cancelled")
                if not wait_until(hook.cond, lambda: prev_key in hook.arrivals, CHANGE_TIMEOUT_S, agent,
                                  "the Cancelled transition"):
                    progress(f"change {no}: Cancelled of the previous event not delivered within "
                             f"{CHANGE_TIMEOUT_S} s")

        arrivals = arrival_in(hook.cond, lambda: hook.arrivals, agent, "the Scheduled transition")
        samples, timeouts = timed_changes(title, imds, agent, n_changes, interval_ms / 1000, rng,
                                          lambda e: [scheduled_event(e)],
                                          lambda e, no: arrivals((e, "Scheduled"), no), settle)
        noise = background.text()
        disk.stop()
    finally:
        exit_code = agent.stop()
    # --- results ---
    goal_ms = 1050 if interval_ms == 1000 else interval_ms + 50
    lat = [(a - c) * 1000 for _, _, _, c, a in samples]
    if not lat:
        raise BenchFailure("no change was delivered")
    p99 = pct(lat, 99)
    report.figures.setdefault("p99", {})[interval_ms] = p99
    report.raw[f"poll{interval_ms}"] = {
        "samples": [{"no": no, "eventId": e, "incarnation": inc, "t_change": c, "t_arrival": a,
                     "t_poll": imds.first_served.get(inc)} for no, e, inc, c, a in samples],
        "polls": list(imds.polls), "disk_stalls": disk.stalls}
    key = f"lat{interval_ms}"
    report.row(f"{label_no}. {title}: p50 / p90 / p99 / max", len(lat), "ms", summary(lat),
               f"p99 ≤ {goal_ms} ms", p99 <= goal_ms, key=key)
    # Where the time goes: waiting for the next poll vs. the agent's own work after that poll.
    logged = transition_log_times(agent.log_path)
    wait_poll, poll_to_hook, poll_to_log, log_to_hook, breakdown = [], [], [], [], []
    for no, event_id, inc, t_change, t_arr in samples:
        t_poll = imds.first_served.get(inc)
        t_log = logged.get((event_id, "Scheduled"))
        if t_poll is None:
            continue
        wait_poll.append((t_poll - t_change) * 1000)
        poll_to_hook.append((t_arr - t_poll) * 1000)
        if t_log is not None:
            poll_to_log.append((t_log - t_poll) * 1000)
            log_to_hook.append((t_arr - t_log) * 1000)
        breakdown.append(((t_arr - t_change) * 1000, (t_poll - t_change) * 1000,
                          None if t_log is None else (t_log - t_poll) * 1000,
                          None if t_log is None else (t_arr - t_log) * 1000, no, event_id,
                          disk.overlapping(t_change, t_arr)))
    if wait_poll:
        report.row(f"{label_no}b. ↳ change → next poll that served it", len(wait_poll), MS4, summary(wait_poll),
                   key=f"{key}_wait")
        report.row(f"{label_no}c. ↳ that poll → webhook arrival (agent work; seed: poll → printed line)",
                   len(poll_to_hook), MS4, summary(poll_to_hook), key=f"{key}_work")
    if poll_to_log:
        report.row(f"{label_no}d. ↳↳ poll → 'transitions -' log line (ms-resolution wall clock)",
                   len(poll_to_log), MS4, summary(poll_to_log))
        report.row(f"{label_no}e. ↳↳ log line → webhook arrival", len(log_to_hook), MS4, summary(log_to_hook))
    n_gaps, gaps_text = poll_gaps(imds)
    if n_gaps:
        report.row(f"{label_no}f. observed poll period (gap between GETs): mean / p99 / max", n_gaps, "ms",
                   gaps_text, f"≈ {interval_ms} ms", key=f"{key}_period")
    slow = sorted(breakdown, reverse=True)[:5]
    f = lambda v: "n/a" if v is None else fmt_ms(v)
    report.sections.append(
        f"#### Slowest 5 changes @ {interval_ms} ms polling (ms)\n\n"
        "| change # | total | change→poll | poll→log line | log line→webhook | longest disk stall within it "
        "| EventId |\n"
        "|---:|---:|---:|---:|---:|---:|---|\n" +
        "".join(f"| {no} | {fmt_ms(t)} | {fmt_ms(w)} | {f(pl)} | {f(lh)} | {fmt_ms(d)} | `{e}` |\n"
                for t, w, pl, lh, no, e, d in slow))
    report.row(f"{label_no}g. background load during the {len(samples)} changes", 1, "—", noise,
               "≈ 0 (quiet machine)", None, key=f"{key}_bg")
    # The state is forced to disk before a change is dispatched: a stalled device shows in the tail.
    untouched = [(a - c) * 1000 for _, _, _, c, a in samples if not disk.overlapping(c, a)]
    report.figures.setdefault("disk", {})[interval_ms] = {
        "stalls_100ms": sum(1 for a, b in disk.stalls if b - a >= 0.1), "device": disk.name,
        "p99_untouched": pct(untouched, 99) if untouched else None, "n_untouched": len(untouched)}
    report.row(f"{label_no}g2. disk stalls during the changes (the state directory's device, /proc/diskstats); "
               "p99 of the changes no stall overlapped", len(untouched), "—",
               f"{disk.text()}; p99 {fmt_ms(pct(untouched, 99)) if untouched else 'n/a'} ms over "
               f"{len(untouched)} changes", "none ≥ 100 ms (quiet disk)", None, key=f"{key}_disk")
    sanity(report, f"{label_no}h", imds, hook, agent, exit_code, key=f"{key}_sanity")
    if timeouts:
        raise BenchFailure(f"{timeouts} of {n_changes} changes got no webhook within {CHANGE_TIMEOUT_S} s")


def first_poll(report, imds, agent, samples=None):
    if not wait_until(imds.cond, lambda: imds.first_get is not None, FIRST_POLL_TIMEOUT_S, agent, "the first poll"):
        raise BenchFailure(f"no IMDS request within {FIRST_POLL_TIMEOUT_S} s; log tail:\n{agent.log_tail()}")
    wait_until(imds.cond, lambda: imds.polls, FIRST_POLL_TIMEOUT_S, agent, "the first scheduledevents poll")
    ms_any = (imds.first_get - agent.t_spawn) * 1000
    ms_events = (imds.polls[0] - agent.t_spawn) * 1000
    (report.start_samples if samples is None else samples).append((agent.name, ms_any, ms_events))
    progress(f"{agent.name}: first IMDS GET after {ms_any:.0f} ms, first events poll after {ms_events:.0f} ms")


def sanity(report, label, imds, hook, agent, exit_code, key=None):
    warns, first = log_problems(agent.log_path)
    with hook.cond, imds.cond:
        text = (f"{hook.count} POSTs, {hook.duplicates} duplicates, {hook.bad_signatures} bad signatures, "
                f"{hook.unparsable} unparsable; IMDS rejected {imds.rejected} requests; "
                f"{imds.start_request_posts} StartRequests POSTs ({imds.start_request_repeats} repeated); "
                f"agent WARN/ERROR log lines {warns}; exit code after SIGTERM {exit_code}")
        ok = (hook.duplicates == 0 and hook.bad_signatures == 0 and hook.unparsable == 0 and imds.rejected == 0
              and imds.start_request_repeats == 0)
    report.row(f"{label}. sanity ({agent.name})", hook.count, "POSTs", text, "no dup/bad sig/rejects", ok, key=key)
    if first:
        report.notes.append(f"{agent.name} log WARN/ERROR sample: " + " ¦ ".join(x[:200] for x in first))


def start_with_one_event(imds, proc, name):
    """Fresh counters and a document with one Scheduled event before the process starts, so that its first
    poll yields a delivery (each sink's code has run); the document then stays unchanged. Returns the event."""
    imds.reset_counters()
    event = scheduled_event(new_event_id())
    imds.set_events([event])
    proc.start()
    progress(f"{name}: one Scheduled event in the document from the start, then no change until the RSS window ends")
    return event


def first_webhook(hook, agent, event):
    """Waits for the event's Scheduled webhook; returns the agent's uptime then (s)."""
    key = (event["EventId"], "Scheduled")
    if not wait_until(hook.cond, lambda: key in hook.arrivals, FIRST_POLL_TIMEOUT_S, agent, "the first webhook"):
        raise BenchFailure(f"the first event got no webhook within {FIRST_POLL_TIMEOUT_S} s; log tail:\n"
                           f"{agent.log_tail()}")
    with hook.cond:
        return hook.arrivals[key] - agent.t_spawn


def steady_rss_text(rss, extra=""):
    return (f"{rss['median']:.1f} / {rss['max']:.1f} ({rss['n']} samples at {rss['from']:.0f}–{rss['to']:.0f} s "
            f"uptime{extra})") if rss else "n/a (no sample in the window)"


def order_probe(imds, hook, agent, keep, ids):
    """Not timed: the burst's events go Started in one document and vanish (Completed) in the next, served as
    soon as the agent polled the previous one. Returns how many of them got their Scheduled, Started and
    Completed webhooks in that order (arrival at the receiver: the agent sends an event's next transition
    only once the previous one was answered)."""
    incarnation, _ = imds.set_events(keep + [scheduled_event(e, status="Started") for e in ids])
    if not wait_until(imds.cond, lambda: incarnation in imds.first_served, 30, agent, "the Started document's poll"):
        raise BenchFailure("the document with the events Started was not polled within 30 s")
    imds.set_events(keep)
    keys = [(e, t) for e in ids for t in ("Started", "Completed")]
    done = wait_until(hook.cond, lambda: all(k in hook.arrivals for k in keys), BURST_TIMEOUT_S, agent,
                      f"{len(keys)} Started and Completed transitions")
    with hook.cond:
        a = hook.arrivals
        if not done:
            raise BenchFailure(f"only {sum(k in a for k in keys)}/{len(keys)} Started/Completed webhooks within "
                               f"{BURST_TIMEOUT_S} s")
        return sum(a[(e, "Scheduled")] < a[(e, "Started")] < a[(e, "Completed")] for e in ids)


def idle_and_burst_run(report, imds, hook, mkagent, steady, jcmd, label_no):
    """Run C: one event delivered, then an unchanged document (idle CPU, steady RSS), then the burst."""
    agent = mkagent("idle", {"BRIDGE_IMDS_POLL_INTERVAL": "1000"})
    wait_for_quiet(report, report.quiet_wait, report.quiet_threshold, "run idle")
    hook.reset_counters()
    initial = start_with_one_event(imds, agent, agent.name)
    rss = RssSampler(agent)
    exit_code = None
    try:
        first_poll(report, imds, agent)
        delivered_at = first_webhook(hook, agent, initial)
        # --- 4. idle CPU: unchanging document --------------------------------------------------------
        pause_until_uptime(agent, steady.idle_from)
        progress(f"idle CPU: {steady.idle_window} s window")
        background = Background(agent.pid)
        threads0 = thread_ticks(agent.pid)
        polls0, ticks0, t0 = len(imds.polls), cpu_ticks(agent.pid), time.monotonic()
        pause(steady.idle_window, agent)
        ticks1, t1, polls1 = cpu_ticks(agent.pid), time.monotonic(), len(imds.polls)
        threads1 = thread_ticks(agent.pid)
        cpu_pct = (ticks1 - ticks0) / CLK_TCK / (t1 - t0) * 100
        report.row(f"{label_no}. Idle CPU @ 1 Hz polling, unchanging document ({polls1 - polls0} polls in "
                   f"{t1 - t0:.0f} s window, from {t0 - agent.t_spawn:.0f} s uptime)", f"{t1 - t0:.0f} s", "% of one core",
                   f"{cpu_pct:.2f} % ({ticks1 - ticks0} ticks @ {CLK_TCK} Hz; meanwhile {background.text()})",
                   "≤ 0.5 %", cpu_pct <= 0.5, key="idle")
        report.figures["idle"] = {"pct": cpu_pct, "from": t0 - agent.t_spawn, "window": t1 - t0}
        # Which threads burn it (names as the JVM sets them, digits folded to '#'): polling thread
        # vs JIT compiler vs GC vs others. Ticks are 1/CLK_TCK s samples, so small counts are coarse.
        per_thread = sorted(((threads1.get(n, 0) - threads0.get(n, 0), n) for n in threads1), reverse=True)
        top = [f"{n} {d}" for d, n in per_thread[:6] if d > 0]
        report.row(f"{label_no}b. ↳ idle CPU by thread (top, ticks in the window)", len(threads1), "threads",
                   ", ".join(top) or "no thread reached one tick", key="idle_threads")
        report.raw["idle"] = {"cpu_pct": cpu_pct, "ticks": ticks1 - ticks0, "window_s": t1 - t0,
                              "polls": polls1 - polls0, "threads": {n: d for d, n in per_thread if d > 0}}
        # --- 5. steady RSS: the unchanged document until the end of the RSS window ---------------------
        pause_until_uptime(agent, steady.rss_to)
        rss.stop()
        mem = memory_status(agent.pid)
        steady_rss = rss.steady(steady.rss_from, steady.rss_to, delivered_at)
        management = log_has(agent, "Management server on http://")
        if steady_rss:
            steady_rss.update(checks="management server up" if management else "**management server not up** (log)",
                              valid=management)
            report.figures["rss"] = steady_rss
        report.raw["rss_samples"] = rss.samples
        report.row(f"{label_no + 1}. RSS steady (VmRSS, 1 s samples; median / max), management on, one webhook "
                   f"sink, one event delivered then the document unchanged; peak RSS (VmHWM) at the end", 1, "MiB",
                   steady_rss_text(steady_rss, f"; peak {mem['VmHWM'] / 1024:.1f}; {mem.get('Threads', '?')} "
                                               f"threads; management {'up' if management else 'NOT up'}"),
                   f"≤ {todays.GOAL_RSS} MiB (stretch {todays.STRETCH_RSS})",
                   None if steady_rss is None else steady_rss["median"] <= todays.GOAL_RSS, key="rss")
        heap = heap_info(jcmd, agent.pid)  # after the windows: the attach itself costs CPU and memory
        report.row(f"{label_no + 1}b. Heap used / committed, Metaspace used (jcmd GC.heap_info)", 1, "MiB",
                   "n/a (no jcmd or attach failed)" if heap is None else
                   f"{heap[0]:.1f} / {heap[1]:.1f}, Metaspace {'n/a' if heap[2] is None else f'{heap[2]:.1f}'}",
                   key="heap")
        # --- 6. one document with 1000 new Scheduled events (the first event stays, unchanged) -----------
        progress(f"burst: one document with {BURST_EVENTS} new events")
        ids = [new_event_id() for _ in range(BURST_EVENTS)]
        pause(random.uniform(0, 1.0), agent)
        background = Background(agent.pid)
        incarnation, t_change = imds.set_events([initial] + [scheduled_event(e) for e in ids])
        keys = [(e, "Scheduled") for e in ids]
        done = wait_until(hook.cond, lambda: all(k in hook.arrivals for k in keys), BURST_TIMEOUT_S, agent,
                          f"{BURST_EVENTS} Scheduled transitions")
        with hook.cond:
            arrived = sorted(hook.arrivals[k] for k in keys if k in hook.arrivals)
        if not done:
            raise BenchFailure(f"only {len(arrived)}/{BURST_EVENTS} transitions within {BURST_TIMEOUT_S} s")
        t_poll = imds.first_served.get(incarnation, t_change)
        total_ms = (arrived[-1] - t_change) * 1000
        report.figures["burst"] = {"ms": total_ms, "order_ok": None}
        logged = transition_log_times(agent.log_path)
        log_times = sorted(logged[k] for k in keys if k in logged)
        report.raw["burst"] = {"t_change": t_change, "t_poll": t_poll, "arrivals": arrived, "log_lines": log_times}
        report.row(f"{label_no + 2}. {BURST_EVENTS}-event document (Platform Reboots) → all {BURST_EVENTS} "
                   f"Scheduled webhooks (seed: all {BURST_EVENTS} Descriptions printed)",
                   BURST_EVENTS, "ms", f"{total_ms:.0f} total (change→poll {(t_poll - t_change) * 1000:.0f}, "
                   f"poll→first webhook {(arrived[0] - t_poll) * 1000:.0f}, first→last webhook "
                   f"{(arrived[-1] - arrived[0]) * 1000:.0f})", key="burst")
        if log_times:
            # The agent logs all transitions of a document, then spools all of them (one fsynced file
            # each), then queues them: this splits the gap before the first webhook accordingly.
            report.row(f"{label_no + 2}a. ↳ burst timeline from the poll: first / last 'transitions -' log line, "
                       "first / last webhook", len(log_times), "ms after the poll",
                       f"{(log_times[0] - t_poll) * 1000:.0f} / {(log_times[-1] - t_poll) * 1000:.0f} / "
                       f"{(arrived[0] - t_poll) * 1000:.0f} / {(arrived[-1] - t_poll) * 1000:.0f}")
        span = arrived[-1] - arrived[0]
        report.row(f"{label_no + 2}b. {BURST_EVENTS}-event document: deliveries/s end-to-end "
                   f"(from change) / while delivering (first→last)", BURST_EVENTS, "deliveries/s",
                   f"{BURST_EVENTS / (arrived[-1] - t_change):.0f} / "
                   f"{(BURST_EVENTS - 1) / span:.0f}" if span > 0 else "n/a", key="burst_rate")
        report.row(f"{label_no + 2}c. background load during the burst", 1, "—", background.text(),
                   "≈ 0 (quiet machine)", None, key="burst_bg")
        mem = memory_status(agent.pid)
        report.row(f"{label_no + 2}d. RSS / peak RSS after the {BURST_EVENTS}-event burst", 1, "MiB",
                   f"{mem['VmRSS'] / 1024:.1f} / {mem['VmHWM'] / 1024:.1f}", key="rss_burst")
        # --- 6e. per-event order (not timed) ------------------------------------------------------------
        progress(f"per-event order: the {BURST_EVENTS} events Started, then gone (Completed)")
        order_label = (f"{label_no + 2}e. per-event order (not timed): the {BURST_EVENTS} events Started in the next "
                       f"document, gone (Completed) in the one after; events whose Scheduled → Started → Completed "
                       f"webhooks arrived in that order")
        try:
            in_order = order_probe(imds, hook, agent, [initial], ids)
            report.figures["burst"].update(order_ok=in_order == BURST_EVENTS, order_n=BURST_EVENTS)
            report.row(order_label, BURST_EVENTS, "events", f"{in_order} / {BURST_EVENTS}", "all",
                       in_order == BURST_EVENTS, key="burst_order")
        except BenchFailure as e:
            report.fail(order_label, e, key="burst_order")
            progress(f"FAILED: {e}")
    finally:
        rss.stop()
        exit_code = agent.stop()
    sanity(report, f"{label_no + 2}f", imds, hook, agent, exit_code, key="burst_sanity")


def all_sinks_run(report, imds, hook, mkagent, steady, label_no):
    """Run E: the steady RSS of run C with Event Hubs, email and the approval API configured too."""
    sinks_env, smtp = benchlib.all_sinks_env()
    agent = mkagent("allsinks", {"BRIDGE_IMDS_POLL_INTERVAL": "1000", **sinks_env})
    wait_for_quiet(report, report.quiet_wait, report.quiet_threshold, "run allsinks")
    hook.reset_counters()
    initial = start_with_one_event(imds, agent, agent.name)
    rss = RssSampler(agent)
    exit_code = None
    try:
        starts = []   # not among the start figures: the one-webhook runs are compared with the sample
        first_poll(report, imds, agent, starts)
        delivered_at = first_webhook(hook, agent, initial)
        for _ in range(FIRST_POLL_TIMEOUT_S * 2):  # bounded: the mail of the first event
            if smtp.messages:
                break
            pause(0.5, agent)
        pause_until_uptime(agent, steady.rss_to)
        rss.stop()
        mem = memory_status(agent.pid)
    finally:
        rss.stop()
        exit_code = agent.stop()
    warns, _ = log_problems(agent.log_path)
    up = {what: log_has(agent, line) for what, line in (("management", "Management server on http://"),
                                                       ("approval API", "Remote approval API on"))}
    checks = (f"webhook delivered, {smtp.messages} mail(s) accepted, "
              + ", ".join(f"{w} {'up' if ok else '**not up**'}" for w, ok in up.items())
              + f", {warns} WARN/ERROR log lines (Event Hubs retrying)")
    steady_rss = rss.steady(steady.rss_from, steady.rss_to, delivered_at)
    if steady_rss:
        steady_rss.update(checks=checks, valid=smtp.messages > 0 and all(up.values()))
        report.figures["rss_all"] = steady_rss
    report.raw["rss_all_samples"] = rss.samples
    report.row(f"{label_no}c. RSS steady as in {label_no}, with {benchlib.ALL_SINKS_LABEL}; first IMDS GET after "
               f"{starts[0][1]:.0f} ms; exit code after SIGTERM {exit_code}", 1, "MiB",
               steady_rss_text(steady_rss, f"; peak {mem['VmHWM'] / 1024:.1f}; {mem.get('Threads', '?')} threads; "
                                           f"{checks}"),
               f"≤ {todays.GOAL_RSS_ALL} MiB", None if steady_rss is None else
               steady_rss["median"] <= todays.GOAL_RSS_ALL and smtp.messages > 0 and all(up.values()),
               key="rss_all")
    report.base("rss_all", "n/a — the sample has no other sinks")


def user_event_approval_label(label_no):
    return (f"{label_no}. User-initiated event → its StartRequests POST at IMDS (auto-approval; agent with "
            f"bridge.approval.auto.user-initiated=true @ 1000 ms polling): p50 / p90 / p99 / max")


def auto_approval_run(report, imds, hook, mkagent, n_changes, rng, label_no):
    """Run D: the agent approves user-initiated events on its own; change -> StartRequests POST."""
    title = "User event → StartRequests POST @ 1000 ms polling"
    agent = mkagent("autoapprove", {"BRIDGE_IMDS_POLL_INTERVAL": "1000",
                                    "BRIDGE_APPROVAL_AUTO_USER_INITIATED": "true"})
    wait_for_quiet(report, report.quiet_wait, report.quiet_threshold, "run autoapprove")
    imds.reset_counters()
    hook.reset_counters()
    agent.start()
    try:
        first_poll(report, imds, agent)
        if not wait_until(imds.cond, lambda: len(imds.polls) >= WARMUP_POLLS, 30 + WARMUP_POLLS, agent,
                          "warm-up polls"):
            raise BenchFailure(f"fewer than {WARMUP_POLLS} polls during warm-up")
        progress(f"{title}: warm-up done, {n_changes} changes")
        background = Background(agent.pid)

        def settle(previous, event_id, no):
            # Not timed: the event's Scheduled and Approved and the previous event's Cancelled land
            # before the next change, as in runs A and B.
            keys = [(event_id, "Scheduled"), (event_id, "Approved")] + \
                ([(previous, "Cancelled")] if previous is not None else [])
            if not wait_until(hook.cond, lambda: all(k in hook.arrivals for k in keys), CHANGE_TIMEOUT_S, agent,
                              "the transitions of the change"):
                progress(f"change {no}: not all of {keys} delivered within {CHANGE_TIMEOUT_S} s")

        samples, timeouts = timed_changes(title, imds, agent, n_changes, 1.0, rng,
                                          lambda e: [scheduled_event(e, source="User")],
                                          arrival_in(imds.cond, lambda: imds.start_requests, agent,
                                                     "the StartRequests POST"), settle)
        noise = background.text()
    finally:
        exit_code = agent.stop()
    lat = [(a - c) * 1000 for _, _, _, c, a in samples]
    if not lat:
        raise BenchFailure("no user-initiated event was approved")
    with hook.cond:
        approved = {e: hook.arrivals.get((e, "Approved")) for _, e, _, _, _ in samples}
    report.raw["autoapprove"] = {"samples": [{"no": no, "eventId": e, "incarnation": inc, "t_change": c,
                                              "t_post": a, "t_poll": imds.first_served.get(inc),
                                              "t_approved_webhook": approved[e]}
                                             for no, e, inc, c, a in samples], "polls": list(imds.polls)}
    report.row(user_event_approval_label(label_no), len(lat), "ms", summary(lat), key="autoapprove")
    wait_poll, after_poll = wait_poll_split(imds, samples)
    if wait_poll:
        report.row(f"{label_no}b. ↳ change → next poll that served it", len(wait_poll), MS4, summary(wait_poll),
                   key="autoapprove_wait")
        report.row(f"{label_no}c. ↳ that poll → StartRequests POST", len(after_poll), MS4, summary(after_poll),
                   key="autoapprove_work")
    to_hook = [(approved[e] - a) * 1000 for _, e, _, _, a in samples if approved[e] is not None]
    if to_hook:
        report.row(f"{label_no}d. ↳ StartRequests POST → its Approved webhook (not in the figure)", len(to_hook),
                   MS4, summary(to_hook))
    report.row(f"{label_no}e. background load during the {len(samples)} changes", 1, "—", noise,
               "≈ 0 (quiet machine)", None, key="autoapprove_bg")
    sanity(report, f"{label_no}f", imds, hook, agent, exit_code, key="autoapprove_sanity")
    if timeouts:
        raise BenchFailure(f"{timeouts} of {n_changes} user events got no StartRequests within {CHANGE_TIMEOUT_S} s")


def approval_api_run(report, jar, argfile, java_opts_raw, workdir, n, label_no):
    """Remote approval request -> StartRequests POST: bench/approval_latency.py, run as it is (it
    starts its own agent and scripted IMDS). Its own process group, so the clean-up also reaches
    the agent it started, whatever happens to the script."""
    log_path = os.path.join(workdir, "approval-api.stderr.log")
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRIDGE_")}
    env["BENCH_JAVA_OPTS"] = java_opts_raw
    err = open(log_path, "wb")
    try:
        proc = subprocess.Popen([sys.executable, APPROVAL_SCRIPT, "--jar", jar, "--n", str(n),
                                 "--argfile", argfile], cwd=workdir,
                                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err,
                                start_new_session=True)
    finally:
        err.close()

    def stop():
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
            except ProcessLookupError:
                pass
    register_cleanup(stop)
    progress(f"approval API: bench/approval_latency.py --n {n}, pid {proc.pid}")
    try:
        out, _ = proc.communicate(timeout=APPROVAL_API_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        stop()
        raise BenchFailure(f"bench/approval_latency.py did not finish within {APPROVAL_API_TIMEOUT_S} s")
    out = out.decode(errors="replace").strip()
    m = re.search(r"N=(\d+).*?p50 ([\d.]+) ms, p90 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms", out)
    if proc.returncode != 0 or not m:
        with open(log_path, errors="replace") as f:
            err_text = f.read().strip()[-400:]
        raise BenchFailure(f"bench/approval_latency.py exited {proc.returncode}: {(out or err_text)[-400:]}")
    p50, p90, p99, mx = (float(m.group(i)) for i in range(2, 6))
    report.raw["approval_api"] = {"output": out}
    report.row(f"{label_no}. Remote approval request → StartRequests POST at IMDS (approval API, "
               f"bench/approval_latency.py, its own agent; 100 warm-up): p50 / p90 / p99 / max", int(m.group(1)),
               "ms", " / ".join(fmt_ms(v) for v in (p50, p90, p99, mx)), "p99 ≤ 20 ms", p99 <= 20,
               key="approval_api")


# ---------------------------------------------------------------------------------------------
# Baseline runs (the seeds' Python sample), against the same scripted IMDS
# ---------------------------------------------------------------------------------------------
def seed_sanity(report, key, imds, seed, exit_code, expect_posts):
    stderr = seed.stderr_lines()
    with imds.cond, seed.cond:
        text = (f"{seed.lines} stdout lines, {len(seed.processed)} documents processed; IMDS rejected "
                f"{imds.rejected} requests; {imds.start_request_posts} StartRequests POSTs "
                f"({imds.start_request_repeats} repeated); stderr lines {len(stderr)}; exit code after SIGTERM "
                f"{exit_code}")
        ok = imds.rejected == 0 and not stderr and (imds.start_request_posts > 0) == expect_posts
    report.base(key, text, ok)
    if stderr:
        report.notes.append(f"{seed.name} stderr: " + " ¦ ".join(x[:200] for x in stderr[-3:]))


def seed_warm_up(imds, seed):
    if not wait_until(imds.cond, lambda: len(imds.polls) >= WARMUP_POLLS, 30 + WARMUP_POLLS * SEED_PERIOD_S,
                      seed, "warm-up polls"):
        raise BenchFailure(f"fewer than {WARMUP_POLLS} polls during warm-up")


def seed_timed_run(report, imds, mkseed, name, title, n_changes, rng, make_events, arrival_of):
    """Starts the sample, waits for its first poll and warm-up, times n_changes changes, stops it.

    Returns (samples, timeouts, background load text, exit code, the sample)."""
    seed = mkseed(name)
    wait_for_quiet(report, report.quiet_wait, report.quiet_threshold, f"baseline run seed-{name}")
    imds.reset_counters()
    seed.start()
    try:
        first_poll(report, imds, seed, report.seed_start_samples)
        seed_warm_up(imds, seed)
        progress(f"{title}: warm-up done, {n_changes} changes")
        background = Background(seed.pid)
        samples, timeouts = timed_changes(title, imds, seed, n_changes, SEED_PERIOD_S, rng, make_events,
                                          arrival_of(seed))
        noise = background.text()
    finally:
        exit_code = seed.stop()
    return samples, timeouts, noise, exit_code, seed


def seed_latency_run(report, imds, mkseed, n_changes, rng):
    """Run S1: change -> the line the sample prints for it (its only delivery), at its fixed 1 s."""
    samples, timeouts, noise, exit_code, seed = seed_timed_run(
        report, imds, mkseed, "poll1000", "seed: change → printed line", n_changes, rng,
        lambda e: [scheduled_event(e)],
        lambda seed: arrival_in(seed.cond, lambda: seed.printed, seed, "the printed line"))
    lat = [(a - c) * 1000 for _, _, _, c, a in samples]
    if not lat:
        raise BenchFailure("no change was printed")
    report.raw["seed_poll1000"] = {
        "samples": [{"no": no, "eventId": e, "incarnation": inc, "t_change": c, "t_printed": a,
                     "t_poll": imds.first_served.get(inc)} for no, e, inc, c, a in samples],
        "polls": list(imds.polls)}
    report.base("lat1000", summary(lat) + f" (N={len(lat)})", pct(lat, 99) <= 1050)
    report.figures["seed_p99"] = {1000: pct(lat, 99)}
    report.base("lat200", "n/a — the sample sleeps 1 s between polls (its 1 s figure: row 2)")
    wait_poll, after_poll = wait_poll_split(imds, samples)
    if wait_poll:
        report.base("lat1000_wait", summary(wait_poll))
        report.base("lat1000_work", summary(after_poll))
    n_gaps, gaps_text = poll_gaps(imds)
    report.base("lat1000_period", f"{gaps_text} (N={n_gaps}; sleep(1) + one GET on a new connection)")
    report.base("lat1000_bg", noise)
    seed_sanity(report, "lat1000_sanity", imds, seed, exit_code, expect_posts=False)
    if timeouts:
        raise BenchFailure(f"{timeouts} of {n_changes} changes were not printed within {CHANGE_TIMEOUT_S} s")


def seed_approval_run(report, imds, mkseed, n_changes, rng):
    """Run S2: the sample approves user-initiated events itself; change -> StartRequests POST."""
    samples, timeouts, noise, exit_code, seed = seed_timed_run(
        report, imds, mkseed, "autoapprove", "seed: user event → StartRequests POST", n_changes, rng,
        lambda e: [scheduled_event(e, source="User")],
        lambda seed: arrival_in(imds.cond, lambda: imds.start_requests, seed, "the StartRequests POST"))
    lat = [(a - c) * 1000 for _, _, _, c, a in samples]
    if not lat:
        raise BenchFailure("no user-initiated event was approved")
    report.raw["seed_autoapprove"] = {"samples": [{"no": no, "eventId": e, "incarnation": inc, "t_change": c,
                                                   "t_post": a, "t_poll": imds.first_served.get(inc)}
                                                  for no, e, inc, c, a in samples], "polls": list(imds.polls)}
    report.base("autoapprove", summary(lat) + f" (N={len(lat)})", None,
                user_event_approval_label(7))
    wait_poll, after_poll = wait_poll_split(imds, samples)
    if wait_poll:
        report.base("autoapprove_wait", summary(wait_poll))
        report.base("autoapprove_work", summary(after_poll))
    report.base("autoapprove_bg", noise)
    seed_sanity(report, "autoapprove_sanity", imds, seed, exit_code, expect_posts=True)
    if timeouts:
        raise BenchFailure(f"{timeouts} of {n_changes} user events got no StartRequests within {CHANGE_TIMEOUT_S} s")


def seed_idle_and_burst_run(report, imds, mkseed, steady):
    """Run S3: as run C, one event printed, then idle CPU and steady RSS over the same windows of uptime as the
    agent's, then the 1000-event document."""
    seed = mkseed("idle")
    wait_for_quiet(report, report.quiet_wait, report.quiet_threshold, "baseline run seed-idle")
    initial = start_with_one_event(imds, seed, seed.name)
    rss = RssSampler(seed)
    exit_code = None
    try:
        first_poll(report, imds, seed, report.seed_start_samples)
        if not wait_until(seed.cond, lambda: initial["EventId"] in seed.printed, FIRST_POLL_TIMEOUT_S, seed,
                          "the first event's printed line"):
            raise BenchFailure(f"the first event was not printed within {FIRST_POLL_TIMEOUT_S} s")
        with seed.cond:
            printed_at = seed.printed[initial["EventId"]] - seed.t_spawn
        pause_until_uptime(seed, steady.idle_from)
        progress(f"seed idle CPU: {steady.idle_window} s window")
        background = Background(seed.pid)
        polls0, ticks0, t0 = len(imds.polls), cpu_ticks(seed.pid), time.monotonic()
        pause(steady.idle_window, seed)
        ticks1, t1, polls1 = cpu_ticks(seed.pid), time.monotonic(), len(imds.polls)
        cpu_pct = (ticks1 - ticks0) / CLK_TCK / (t1 - t0) * 100
        report.base("idle", f"{cpu_pct:.2f} % ({ticks1 - ticks0} ticks; {polls1 - polls0} polls in {t1 - t0:.0f} s "
                            f"from {t0 - seed.t_spawn:.0f} s uptime; meanwhile {background.text()})", cpu_pct <= 0.5)
        report.figures["seed_idle"] = {"pct": cpu_pct, "from": t0 - seed.t_spawn, "window": t1 - t0}
        report.base("idle_threads", "— (one thread)")
        report.raw["seed_idle"] = {"cpu_pct": cpu_pct, "ticks": ticks1 - ticks0, "window_s": t1 - t0,
                                   "polls": polls1 - polls0}
        pause_until_uptime(seed, steady.rss_to)
        rss.stop()
        mem = memory_status(seed.pid)
        steady_rss = rss.steady(steady.rss_from, steady.rss_to, printed_at)
        if steady_rss:
            report.figures["seed_rss"] = steady_rss
        report.raw["seed_rss_samples"] = rss.samples
        report.base("rss", steady_rss_text(steady_rss, f"; peak {mem['VmHWM'] / 1024:.1f}; "
                                                       f"{mem.get('Threads', '?')} threads"),
                    None if steady_rss is None else steady_rss["median"] <= todays.GOAL_RSS)
        report.base("heap", "n/a — CPython has no separately sized heap (RSS is the footprint)")
        # --- the 1000-event document: every event printed (the first event stays, unchanged) -------------
        progress(f"seed burst: one document with {BURST_EVENTS} new events")
        ids = [new_event_id() for _ in range(BURST_EVENTS)]
        pause(random.uniform(0, SEED_PERIOD_S), seed)
        with seed.cond:
            printed_before = len(seed.printed)   # only the burst's EventIds can be new
        background = Background(seed.pid)
        incarnation, t_change = imds.set_events([initial] + [scheduled_event(e) for e in ids])
        done = wait_until(seed.cond, lambda: len(seed.printed) >= printed_before + BURST_EVENTS, BURST_TIMEOUT_S,
                          seed, f"{BURST_EVENTS} printed lines")
        with seed.cond:
            printed = sorted(seed.printed[e] for e in ids if e in seed.printed)
        if not done or len(printed) < BURST_EVENTS:
            raise BenchFailure(f"only {len(printed)}/{BURST_EVENTS} events printed within {BURST_TIMEOUT_S} s")
        t_poll = imds.first_served.get(incarnation, t_change)
        report.raw["seed_burst"] = {"t_change": t_change, "t_poll": t_poll, "printed": printed}
        report.figures["seed_burst"] = {"ms": (printed[-1] - t_change) * 1000}
        report.base("burst", f"{(printed[-1] - t_change) * 1000:.0f} total (change→poll "
                             f"{(t_poll - t_change) * 1000:.0f}, poll→first line {(printed[0] - t_poll) * 1000:.0f}, "
                             f"first→last line {(printed[-1] - printed[0]) * 1000:.0f})")
        span = printed[-1] - printed[0]
        report.base("burst_rate", f"{BURST_EVENTS / (printed[-1] - t_change):.0f} / "
                                  f"{(BURST_EVENTS - 1) / span:.0f} lines/s" if span > 0 else "n/a")
        report.base("burst_bg", background.text())
        mem = memory_status(seed.pid)
        report.base("rss_burst", f"{mem['VmRSS'] / 1024:.1f} / {mem['VmHWM'] / 1024:.1f}")
        report.base("burst_order", "n/a — the sample prints each document's events; it keeps no per-event state")
    finally:
        rss.stop()
        exit_code = seed.stop()
    seed_sanity(report, "burst_sanity", imds, seed, exit_code, expect_posts=False)


# ---------------------------------------------------------------------------------------------
# Machine description
# ---------------------------------------------------------------------------------------------
def machine(java, state_parent):
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "?")
    except OSError:
        pass
    mem = "?"
    try:
        with open("/proc/meminfo") as f:
            kb = next(int(ln.split()[1]) for ln in f if ln.startswith("MemTotal"))
            mem = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, StopIteration):
        pass
    try:
        jv = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr.splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        jv = "?"
    fs = "?"
    try:
        fs = subprocess.run(["stat", "-f", "-c", "%T", state_parent], capture_output=True, text=True,
                            timeout=10).stdout.strip() or "?"
    except (OSError, subprocess.TimeoutExpired):
        pass
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu": cpu,
        "memory": mem,
        "java": jv,
        "kernel": platform.release(),
        "state_fs": fs,
    }


# ---------------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jar", required=True, help="agent fat jar (copied before use)")
    ap.add_argument("--quick", action="store_true", help="30 changes per latency run, 20 s idle window from 20 s "
                    "uptime, steady RSS at 20–40 s uptime instead of 60–150 s (the summary says so)")
    ap.add_argument("--changes", type=int, help="changes per latency run (default 200, --quick 30)")
    ap.add_argument("--idle-window", type=int, help="idle CPU window in s (default 60, --quick 20)")
    ap.add_argument("--idle-after", type=int, help=f"start the idle CPU window at this uptime in s (default "
                    f"{todays.IDLE_FROM}, --quick {IDLE_MIN_UPTIME_S}; at least {IDLE_MIN_UPTIME_S})")
    ap.add_argument("--seed", type=int, help="random seed (default: time-based, printed)")
    ap.add_argument("--out", help="also write the Markdown report here")
    ap.add_argument("--state-parent", help="create the agents' state dirs here (default: the scratch dir "
                    "under /tmp; e.g. /dev/shm to measure without fsync cost)")
    ap.add_argument("--quiet-wait", type=int, default=180,
                    help="before each agent run, wait up to S s for other processes to go quiet (0 = don't)")
    ap.add_argument("--quiet-threshold", type=float, default=15.0,
                    help="'quiet' = other processes below this %% of one core (default 15)")
    ap.add_argument("--argfile", default=benchlib.SHIPPED_JVM_OPTIONS,
                    help="the agent's JVM options, a JDK @argfile (default: the shipped packaging/jvm.options; "
                         "'none' = the JVM's defaults); BENCH_JAVA_OPTS adds flags after it, which win")
    ap.add_argument("--cds", action="store_true",
                    help="make an AppCDS archive for the benchmarked jar with bin/create-cds-archive and the "
                         "argfile (as the Dockerfile does) and add -XX:SharedArchiveFile to the agent's flags")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the seed-001 Python sample runs (its column then says 'not run')")
    ap.add_argument("--approvals", type=int,
                    help="remote approvals measured by bench/approval_latency.py (default 500, --quick 100; "
                    "0 = don't run it)")
    args = ap.parse_args()
    n_changes = args.changes or (30 if args.quick else 200)
    idle_window = args.idle_window or (20 if args.quick else 60)
    idle_after = args.idle_after or (IDLE_MIN_UPTIME_S if args.quick else todays.IDLE_FROM)
    n_approvals = args.approvals if args.approvals is not None else (100 if args.quick else 500)
    if not 1 <= n_changes <= 2000 or not 5 <= idle_window <= 600 or not 20 <= idle_after <= 1800 \
            or not 0 <= n_approvals <= 10000:
        ap.error("--changes must be 1..2000, --idle-window 5..600, --idle-after 20..1800, --approvals 0..10000")
    # Steady RSS at 60-150 s of uptime (--quick: over the idle window); the phase lasts until both windows end.
    rss_window = (idle_after, idle_after + idle_window) if args.quick else todays.RSS_WINDOW
    steady = Steady(idle_after, idle_window, rss_window[0], max(rss_window[1], idle_after + idle_window))
    seed = args.seed if args.seed is not None else int(time.time())
    rng = random.Random(seed)
    random.seed(seed)

    benchlib.install_signal_handlers()

    java = shutil.which("java")
    if not java:
        print("java not found on PATH", file=sys.stderr)
        return 2
    java_opts_raw = os.environ.get("BENCH_JAVA_OPTS", "").strip()
    if args.argfile != "none":
        if not os.path.isfile(args.argfile):
            ap.error(f"--argfile {args.argfile}: no such file")
        args.argfile = os.path.abspath(args.argfile)   # bench/approval_latency.py runs elsewhere
    java_opts = benchlib.agent_jvm_options(args.argfile, java_opts_raw)
    jcmd = jcmd_path(java)

    stamp = time.strftime("%Y%m%d-%H%M%S")
    workdir = tempfile.mkdtemp(prefix=f"bench-{stamp}-", dir="/tmp")
    progress(f"scratch dir {workdir} (agent logs stay there)")

    def remove_scratch():  # keep the logs for post-mortems, drop the jar copy and state dirs
        for name in os.listdir(workdir):
            path = os.path.join(workdir, name)
            if name in ("agent.jar", "agent.jsa"):
                os.remove(path)
            elif name.startswith("state-"):
                shutil.rmtree(path, ignore_errors=True)
        if not os.listdir(workdir):  # nothing ran: no logs worth keeping
            os.rmdir(workdir)
    register_cleanup(remove_scratch)

    load = todays.LoadWatch().start()
    register_cleanup(load.stop)
    report = Report()
    report.start_samples = []
    report.seed_start_samples = []
    report.quiet_wait = max(0, min(args.quiet_wait, 1800))
    report.quiet_threshold = args.quiet_threshold
    state_parent = os.path.abspath(args.state_parent or workdir)
    info = machine(java, state_parent)
    header = [f"# scheduled-events-bridge benchmark — {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M:%S} UTC", ""]
    try:
        jar, sha = snapshot_jar(os.path.abspath(args.jar), workdir)
        if args.cds:
            archive = os.path.join(workdir, "agent.jsa")
            progress("training run for the AppCDS archive (bin/create-cds-archive)")
            made = subprocess.run([CDS_SCRIPT, jar, archive], capture_output=True, text=True, timeout=180,
                                  env=dict(os.environ, JVM_OPTIONS="/dev/null" if args.argfile == "none"
                                           else args.argfile))
            if made.returncode != 0:
                raise BenchFailure(f"bin/create-cds-archive failed: {made.stderr.strip()[-600:]}")
            java_opts.append(f"-XX:SharedArchiveFile={archive}")
            java_opts_raw = (java_opts_raw + f" -XX:SharedArchiveFile={archive}").strip()
        header += [
            f"- **Jar**: `{os.path.abspath(args.jar)}` (benchmarked copy, sha256 `{sha[:16]}…`)",
            f"- **JVM options**: {benchlib.describe_jvm_options(args.argfile, java_opts_raw, 'BENCH_JAVA_OPTS')}"
            + (" (AppCDS archive made by bin/create-cds-archive for this jar)" if args.cds else ""),
            f"- **Effective JVM**: {effective_jvm_flags(java, java_opts)}",
            f"- **Machine**: {info['nproc']} CPUs ({info['cpu']}), {info['memory']} RAM, kernel {info['kernel']}, "
            f"`{info['java']}`; agent state dirs under `{state_parent}` ({info['state_fs']}, "
            f"the agent fsyncs every state and spool write); load average at start {open('/proc/loadavg').read().split()[0]}",
            f"- **Mode**: {'quick' if args.quick else 'full'}; {n_changes} changes per latency run; idle window "
            f"{idle_window} s from {idle_after} s uptime; steady RSS at {steady.rss_from}–{steady.rss_to} s uptime; "
            f"management server on (port 0) in every agent run; seed {seed}; percentiles nearest-rank; webhook signed (HMAC-SHA256), "
            f"HTTP/1.1 keep-alive on both servers; each change replaces the single event with a new one, a Reboot "
            f"whose Description ends with its EventId (so it also yields a Cancelled transition, delivered but not "
            f"timed); {n_approvals} remote approvals; before each agent and baseline run the harness "
            f"waits up to {report.quiet_wait} s for other processes to drop below {report.quiet_threshold:.0f} % "
            f"of one core",
            f"- **Scratch/logs**: `{workdir}`",
            "",
        ]
        baseline = None   # (python, version, requests version) when the seed sample can run
        if args.no_baseline:
            report.notes.append("baseline (seed-001 Python sample) not run (--no-baseline)")
        else:
            try:
                baseline = (sys.executable, *seed_preflight(sys.executable))
                header.insert(-2, f"- **Baseline**: `bench/baseline/seed001_sample.py` (the Python sample of the seeds' "
                                  f"doc 001, verbatim but for its IMDS URL), Python {baseline[1]}, requests "
                                  f"{baseline[2]}, run as `python3 -u`; the same scripted IMDS and the same documents")
            except BenchFailure as e:
                report.base_fail(["lat1000"], "seed-001 Python sample", e)
        imds = ScriptedImds()
        hook = WebhookReceiver()
        base_env = {
            "BRIDGE_IMDS_URL": f"{imds.base}/metadata/scheduledevents",
            "BRIDGE_IMDS_INSTANCE_URL": f"{imds.base}/metadata/instance/compute",
            "BRIDGE_WEBHOOK_URLS": hook.url,
            "BRIDGE_WEBHOOK_SECRET": WEBHOOK_SECRET,
            "BRIDGE_MANAGEMENT_PORT": "0",   # management on, as by default, on a free port (8080 may be taken)
        }

        def mkagent(name, extra):
            return Agent(name, java, jar, java_opts, workdir, {**base_env, **extra}, args.state_parent)

        def mkseed(name):
            return SeedSample(name, baseline[0], workdir, f"{imds.base}/metadata/scheduledevents")

        def baseline_run(keys, label, fn, *fn_args):
            if baseline is None:
                return
            try:
                fn(report, imds, mkseed, *fn_args)
            except BenchFailure as e:
                report.base_fail(keys, label, e)
                progress(f"FAILED (baseline): {e}")

        # Each run is independent: one failing is reported and the others still run. Agent and
        # baseline runs alternate, so that both see the same machine.
        for label_no, interval in ((2, 1000), (3, 200)):
            try:
                change_latency_run(report, imds, hook, mkagent, interval, n_changes, rng, label_no)
            except BenchFailure as e:
                report.fail(f"{label_no}. Change → webhook latency @ {interval} ms polling", e, key=f"lat{interval}")
                progress(f"FAILED: {e}")
            if interval == 1000:
                baseline_run(["lat1000"], "2. change → printed line", seed_latency_run, n_changes, rng)
        try:
            auto_approval_run(report, imds, hook, mkagent, n_changes, rng, 7)
        except BenchFailure as e:
            report.fail(user_event_approval_label(7), e, key="autoapprove")
            progress(f"FAILED: {e}")
        baseline_run(["autoapprove"], "7. user event → StartRequests POST", seed_approval_run, n_changes, rng)
        try:
            idle_and_burst_run(report, imds, hook, mkagent, steady, jcmd, 4)
        except BenchFailure as e:
            report.fail("4–6. Idle CPU / memory / 1000-event document", e, key="idle")
            progress(f"FAILED: {e}")
        baseline_run(["idle", "rss", "burst"], "4–6. idle CPU / memory / 1000-event document",
                     seed_idle_and_burst_run, steady)
        try:
            all_sinks_run(report, imds, hook, mkagent, steady, 5)
        except BenchFailure as e:
            report.fail("5c. RSS steady with all sinks", e, key="rss_all")
            progress(f"FAILED: {e}")
        if n_approvals:
            try:
                approval_api_run(report, jar, args.argfile, java_opts_raw, workdir, n_approvals, 8)
            except BenchFailure as e:
                report.fail("8. Remote approval request → StartRequests POST (bench/approval_latency.py)", e,
                            key="approval_api")
                progress(f"FAILED: {e}")
        else:
            report.row("8. Remote approval request → StartRequests POST", "—", "ms",
                       "not run (--approvals 0); bench/approval_latency.py", "p99 ≤ 20 ms", key="approval_api")
        report.base("approval_api", "n/a — the sample has no approval API (it only approves on its own: row 7)")
        report.row("9. Event Hubs throughput to the local AMQP peer", "—", "events/s",
                   "not measured here: EventHubsThroughput (test classes), see BENCHMARKS.md", "≥ 5000 /s",
                   key="eventhubs")
        report.base("eventhubs", "n/a — the sample has no Event Hubs output")
    except BenchFailure as e:
        report.fail("setup", e)
    finally:
        run_cleanups()

    # Start to first poll: one sample per agent run (and per baseline run).
    if report.start_samples:
        anys = [a for _, a, _ in report.start_samples]
        evs = [e for _, _, e in report.start_samples]
        per_run = ", ".join(f"{n} {a:.0f}" for n, a, _ in report.start_samples)
        report.rows.insert(0, ("1. Start to first poll: spawn → first IMDS GET (min / median / max; per run: "
                               f"{per_run})", str(len(anys)), "ms",
                               f"{min(anys):.0f} / {statistics.median(anys):.0f} / {max(anys):.0f}", "≤ 3000 ms",
                               "✅ met" if max(anys) <= 3000 else "❌ missed", "start"))
        report.rows.insert(1, ("1b. spawn → first Scheduled Events GET (after instance metadata)",
                               str(len(evs)), "ms",
                               f"{min(evs):.0f} / {statistics.median(evs):.0f} / {max(evs):.0f}", "—", "—",
                               "start_events"))
    else:
        report.fail("1. Start to first poll", "no agent run reached its first poll", key="start")
    if report.seed_start_samples:
        evs = [e for _, _, e in report.seed_start_samples]
        per_run = ", ".join(f"{n} {e:.0f}" for n, _, e in report.seed_start_samples)
        report.base("start", f"{min(evs):.0f} / {statistics.median(evs):.0f} / {max(evs):.0f} (per run: {per_run}; "
                             f"its first GET comes after its sleep(1))", max(evs) <= 3000)
        report.base("start_events", "same (no instance metadata)")
        report.figures["seed_start"] = [a for _, a, _ in report.seed_start_samples]
    if report.start_samples:
        report.figures["start"] = [a for _, a, _ in report.start_samples]
    report.figures["n_changes"] = n_changes

    table = report.table()
    mode = (f"**Quick run** (--quick): shortened windows, {n_changes} changes per latency run (the p99 of so few "
            f"is about their max)" if args.quick else f"Full run, {n_changes} changes per latency run")
    summary_lines = todays.table(report.figures, baseline_ran=not args.no_baseline, rss_window=rss_window,
                                 idle_from=idle_after, idle_window=idle_window, load_text=load.text(info['nproc']))
    summary_lines += [
        "",
        f"{mode}; agent JVM flags (BENCH_JAVA_OPTS) `{java_opts_raw or '(none: packaging/jvm.options only)'}`; every "
        "figure comes from this one run, agent and sample alternating. Memory: the median of VmRSS sampled every "
        "second in the window, the document unchanged throughout.",
        "",
    ]
    lines = header[:2] + ["## Today's figures", ""] + summary_lines + ["## Details", ""] + header[2:]
    lines += ["| Measurement | N (agent) | Unit | agent | seed-001 Python sample | Goal | Verdict |",
                      "|---|---:|---|---|---|---|---|"]
    lines += ["| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in r) + " |" for r in table]
    lines.append("")
    lines += report.sections
    if report.notes:
        lines += ["#### Notes", ""] + [f"- {n}" for n in report.notes] + [""]
    if report.failures:
        lines += ["#### Failures", ""] + [f"- {f.splitlines()[0]}" for f in report.failures] + [""]
        for f in report.failures:
            progress("failure detail: " + f)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            f.write(text)
        with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
            json.dump({"seed": seed, "argfile": args.argfile,
                       "argfile_options": [] if args.argfile == "none" else benchlib.read_argfile(args.argfile),
                       "java_opts": java_opts_raw, "columns": ["measurement", "n", "unit", "agent",
                       "seed-001 Python sample", "goal", "verdict"], "rows": table, "figures": report.figures,
                       "load_avg_1min": load.samples, **report.raw}, f)
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
