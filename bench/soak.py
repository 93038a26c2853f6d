#!/usr/bin/env python3
"""Soak test for scheduled-events-bridge (python3 stdlib only). Run for BENCHMARKS.md, not in CI.

Runs the packaged agent, with the JVM options it ships with (@packaging/jvm.options, or --argfile) then
those in SOAK_JAVA_OPTS, for --duration seconds (default 1800) at 200 ms polling against peers the
script plays itself over loopback:
  * a scripted IMDS whose document a seeded scenario evolves every 1-3 s (events appear Scheduled,
    several at once or a hardware failure straight as Started, get Rescheduled, Start, Complete or
    are Cancelled), with rotating fault windows (500, 429, 410, 503, hang beyond the agent's IMDS
    timeout, truncated JSON, empty 200, non-JSON 200, 200 without Events, connection closed without
    an answer, connection refused);
  * two signed-webhook receivers: A suffers rotating outages (503, 500, hang beyond the agent's
    webhook timeout, connection refused with the listener restarted on the same port), B is always
    healthy (isolation: B must not wait for A).
It samples RSS, threads, open FDs, CPU and (after a forced full GC) heap and metaspace, writes them to
bench/results/soak-<timestamp>.csv, drains, verifies every transition against the scenario's ground
truth on both receivers, stops the agent with SIGTERM and prints a Markdown report (stdout and
bench/results/soak-latest.md). Exit status 0 only when every check passes. Progress goes to stderr.

Ground truth is exact because the scenario never changes the document while an IMDS fault is on, and
changes it only after the agent has fetched the current incarnation successfully: every document is
seen, so every expected transition is (eventId, transition, DocumentIncarnation).

Every wait is a Condition/Event wait with a timeout (no sleep loops), every loop is bounded, and every
subprocess/server is torn down on exit, on an exception and on SIGINT/SIGTERM.

The few helpers it shares with bench/harness.py (HTTP handler base, cleanup registry, /proc and jcmd
probes) are copied, not imported, so that the two scripts can evolve independently.
"""

import argparse
import collections
import csv
import datetime as dt
import hashlib
import hmac
import json
import os
import platform
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

WEBHOOK_SECRET = "soak-secret"
VM_NAME = "soak-vm"
OTHER_VM = "soak-vm-2"
COMPUTE = json.dumps({
    "name": VM_NAME,
    "vmId": "8d4f0c2e-0b6a-4c1e-9d3e-00000000500a",
    "resourceId": "/subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/soak-vm",
    "location": "westeurope",
}).encode()

# The agent's settings for the soak (environment variables; everything else is the agent's default).
POLL_INTERVAL_MS = 200          # bridge.imds.poll-interval: the lowest allowed
IMDS_MAX_BACKOFF_MS = 5000      # bridge.imds.max-backoff (default 30000): quicker recovery after 429/410/5xx
DELIVERY_MAX_BACKOFF_MS = 2000  # bridge.delivery.max-backoff (default 5000): quicker recovery after an outage
# The agent's own timeouts (config/application.properties defaults; the soak does not change them).
IMDS_TIMEOUT_S = 10.0           # bridge.imds.timeout
WEBHOOK_TIMEOUT_S = 15.0        # camel.component.http.response-timeout / so-timeout
IMDS_HANG_HOLD_S = IMDS_TIMEOUT_S + 3      # a hung IMDS answers only after the agent gave up
WEBHOOK_HANG_HOLD_S = WEBHOOK_TIMEOUT_S + 5

IMDS_FAULTS = ("http-500", "http-429", "http-410", "http-503", "hang", "truncated-json", "empty-200",
               "non-json-200", "no-events-200", "closed", "refused")
SINK_OUTAGES = ("http-503", "http-500", "hang", "refused")
TRANSITIONS = ("Scheduled", "Started", "Rescheduled", "Completed", "Cancelled")
EVENT_TYPES = ("Freeze", "Reboot", "Redeploy", "Preempt", "Terminate")

FIRST_POLL_TIMEOUT_S = 120
READY_TIMEOUT_S = 120           # after a change or a fault, the agent must fetch the document within this
DRAIN_TIMEOUT_S = 180
SETTLE_S = 3                    # after the drain: time for stray (invented) messages to show up
STOP_GRACE_S = 15
ISOLATION_MAX_S = 10.0          # B's worst IMDS-answer → arrival time while A is down
CLEAN_EXIT_CODES = (0, 143)     # 143 = 128 + SIGTERM: the JVM's normal answer to SIGTERM (docs/operations.md)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402  (next to this script, shared with harness.py)
from benchlib import (progress, register_cleanup, run_cleanups, pause, wait_until, cpu_ticks,  # noqa: E402
                      jcmd_path, pct, snapshot_jar, Failure as SoakFailure, STARTED as _STARTED, SHUTDOWN as _SHUTDOWN)

benchlib.set_label("soak")




# ---------------------------------------------------------------------------------------------
# HTTP plumbing: keep-alive handlers on a server that can be stopped (connections included) and
# started again on the same port, to play "connection refused".
# ---------------------------------------------------------------------------------------------
class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, handler, owner):
        self.owner = owner
        self._conns = set()
        self._conns_lock = threading.Lock()
        super().__init__(addr, handler)

    def track(self, conn, alive):
        with self._conns_lock:
            (self._conns.add if alive else self._conns.discard)(conn)

    def drop_connections(self):
        with self._conns_lock:
            conns, self._conns = list(self._conns), set()
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request, client_address):  # a peer that went away is part of the game
        self.owner.note_io_error()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like IMDS and real webhooks

    def setup(self):
        super().setup()
        self.server.track(self.connection, True)

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass
        finally:
            self.server.track(self.connection, False)

    def log_message(self, *_args):
        pass

    def _send(self, status, body=b"", content_type="application/json", extra=()):
        """True when the whole answer went out."""
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for k, v in extra:
                self.send_header(k, v)
            self.end_headers()
            if body:
                self.wfile.write(body)
            self.wfile.flush()
            return True
        except OSError:
            self.close_connection = True
            return False

    def _read_body(self):
        return benchlib.read_body(self)


class Endpoint:
    """A loopback HTTP server that can go down (listener and open connections) and come back on the same port."""

    def __init__(self, handler_cls, owner, name):
        self.handler_cls, self.owner, self.name = handler_cls, owner, name
        self.lock = threading.Lock()
        self.server = self.thread = None
        self.port = 0
        self.start()
        register_cleanup(self.stop)

    def start(self):
        with self.lock:
            if self.server is not None:
                return
            last = None
            for _ in range(100):  # bounded: ~20 s of retries if the port is briefly unavailable
                try:
                    server = _Server(("127.0.0.1", self.port), self.handler_cls, self.owner)
                    break
                except OSError as e:
                    last = e
                    if _SHUTDOWN.wait(0.2):
                        raise SoakFailure("interrupted")
            else:
                raise SoakFailure(f"{self.name}: cannot listen on port {self.port} again: {last}")
            self.port = server.server_address[1]
            thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                                      name=self.name, daemon=True)
            thread.start()
            self.server, self.thread = server, thread

    def stop(self):
        with self.lock:
            server, thread = self.server, self.thread
            self.server = self.thread = None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        server.drop_connections()
        thread.join(timeout=5)


# ---------------------------------------------------------------------------------------------
# Scripted IMDS with fault windows
# ---------------------------------------------------------------------------------------------
def faulted_key(kind):
    return f"GETs answered '{kind}'"


def label_of(series, label):
    m = re.search(label + r'="([^"]*)"', series)
    return m.group(1) if m else series


def encode_document(incarnation, events):
    return json.dumps({"DocumentIncarnation": incarnation, "Events": events}, separators=(",", ":")).encode()


class _ImdsHandler(_Handler):
    def do_GET(self):
        imds = self.server.owner
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        if self.headers.get("Metadata", "").lower() != "true" or "api-version" not in query:
            imds.count("rejected (no Metadata header or api-version)")
            return self._send(400, b'{"error":"Bad request. Required metadata header not specified"}')
        if url.path == "/metadata/instance/compute":
            imds.count("instance metadata GETs")
            return self._send(200, COMPUTE)
        if url.path != "/metadata/scheduledevents":
            imds.count("rejected (unknown path)")
            return self._send(404, b'{"error":"Not found"}')
        if query["api-version"] != ["2020-07-01"]:
            imds.count(f"api-version {query['api-version']}")
        action, incarnation, body = imds.answer()
        if action == "ok":
            if self._send(200, body):
                imds.served_ok(incarnation)
        elif action.startswith("http-"):
            code = int(action[5:])
            self._send(code, json.dumps({"error": f"scripted {code}"}).encode())
        elif action == "hang":
            imds.release.wait(IMDS_HANG_HOLD_S)       # longer than the agent waits
            if self._send(200, body):                  # the agent has gone: not counted as fetched
                imds.count("hung answers sent late")
        elif action == "truncated-json":
            self._send(200, body[:max(1, len(body) * 2 // 3)])
        elif action == "empty-200":
            self._send(200, b"")
        elif action == "non-json-200":
            self._send(200, b"<html><body>Service Unavailable</body></html>", "text/html")
        elif action == "no-events-200":
            self._send(200, json.dumps({"DocumentIncarnation": incarnation}).encode())
        elif action == "closed":
            self.close_connection = True              # close the socket without any answer
        else:  # "refused" while the listener is already down: a kept-alive connection; drop it too
            self.close_connection = True


class ScriptedImds:
    def __init__(self):
        self.cond = threading.Condition()
        self.release = threading.Event()      # frees hung requests at the end
        self.incarnation = 0
        self.events = []
        self.body = encode_document(0, [])
        self.fault = None
        self.ok_incarnation = -1              # incarnation of the last successful answer
        self.t_published = {}                 # incarnation -> monotonic time it became current
        self.first_ok = {}                    # incarnation -> monotonic time of its first successful answer
        self.ok_times = []                    # every successful answer (monotonic)
        self.gets = 0                         # scheduledevents GETs (faulted included)
        self.counts = collections.Counter()   # fault answers by kind, misc
        self.fault_windows = collections.Counter()
        self.fault_seconds = collections.Counter()
        self.get_log = []                     # (monotonic time, state) of every scheduledevents GET
        self.max_gets_per_s = {}               # state (fault kind or 'no fault') -> most GETs seen in 1 s
        self._fault_t0 = None
        self.endpoint = Endpoint(_ImdsHandler, self, "scripted-imds")
        register_cleanup(self.release.set)
        self.base = f"http://127.0.0.1:{self.endpoint.port}"

    def count(self, what, n=1):
        with self.cond:
            self.counts[what] += n

    def note_io_error(self):
        self.count("connections ended by the peer")

    def answer(self):
        with self.cond:
            t = time.monotonic()
            self.gets += 1
            state = self.fault or "no fault"
            self.get_log.append((t, state))
            # GETs within the last second that met the same IMDS state (a window spanning the end of a
            # fault is attributed to neither side's burst)
            same = 0
            for t_prev, s_prev in reversed(self.get_log):
                if t - t_prev >= 1.0 or s_prev != state:
                    break
                same += 1
            self.max_gets_per_s[state] = max(self.max_gets_per_s.get(state, 0), same)
            if self.fault is None:
                return "ok", self.incarnation, self.body
            self.counts[faulted_key(self.fault)] += 1
            return self.fault, self.incarnation, self.body

    def served_ok(self, incarnation):
        with self.cond:
            t = time.monotonic()
            self.ok_incarnation = incarnation
            self.first_ok.setdefault(incarnation, t)
            self.ok_times.append(t)
            self.cond.notify_all()

    def publish_locked(self, events):
        """Next incarnation (caller holds the lock)."""
        self.incarnation += 1
        self.events = events
        self.body = encode_document(self.incarnation, events)
        self.t_published[self.incarnation] = time.monotonic()
        self.cond.notify_all()
        return self.incarnation

    def observed_locked(self):
        return self.fault is None and self.ok_incarnation == self.incarnation

    def start_fault(self, kind):
        with self.cond:
            self.fault = kind
            self.fault_windows[kind] += 1
            self._fault_t0 = time.monotonic()
        if kind == "refused":
            self.endpoint.stop()

    def end_fault(self):
        with self.cond:
            kind, self.fault = self.fault, None
            if kind is not None:
                self.fault_seconds[kind] += time.monotonic() - self._fault_t0
            self.cond.notify_all()
        if kind == "refused":
            self.endpoint.start()


# ---------------------------------------------------------------------------------------------
# Webhook receivers
# ---------------------------------------------------------------------------------------------
class _WebhookHandler(_Handler):
    def do_POST(self):
        recv = self.server.owner
        body = self._read_body()
        mode = recv.current_mode()
        if mode in ("http-503", "http-500"):
            recv.note_refused(mode)
            self._send(int(mode[5:]), b'{"error":"scripted outage"}')
            return
        recv.record(body, self.headers, held=(mode == "hang"))   # the receiver has the message now
        if mode == "hang":
            recv.release.wait(WEBHOOK_HANG_HOLD_S)     # ...but the agent never hears back in time
        self._send(200)


class WebhookReceiver:
    def __init__(self, name):
        self.name = name
        self.cond = threading.Condition()
        self.release = threading.Event()
        self.mode = None
        self.copies = {}                       # CloudEvent id -> {"keys": set, "n": int, "first": t}
        self.keys = collections.defaultdict(set)   # (eventId, transition, incarnation) -> CloudEvent ids
        self.first_by_key = {}                 # key -> first arrival (monotonic)
        self.arrival_order = []                # (t, incarnation) of each new CloudEvent id
        self.posts = 0
        self.held = 0
        self.refused = collections.Counter()
        self.bad_signatures = 0
        self.unparsable = 0
        self.violations = collections.Counter()
        self.io_errors = 0
        self.outage_windows = collections.Counter()
        self.outage_seconds = collections.Counter()
        self._outage_t0 = None
        self.endpoint = Endpoint(_WebhookHandler, self, f"webhook-{name}")
        register_cleanup(self.release.set)
        self.url = f"http://127.0.0.1:{self.endpoint.port}/hook/{name}"

    def note_io_error(self):
        with self.cond:
            self.io_errors += 1

    def current_mode(self):
        with self.cond:
            self.posts += 1
            return self.mode

    def note_refused(self, mode):
        with self.cond:
            self.refused[mode] += 1

    def record(self, body, headers, held):
        t = time.monotonic()
        ts = headers.get("X-Bridge-Timestamp", "")
        expected = "sha256=" + hmac.new(WEBHOOK_SECRET.encode(), ts.encode() + b"." + body,
                                        hashlib.sha256).hexdigest()
        signed_ok = hmac.compare_digest(expected, headers.get("X-Bridge-Signature", ""))
        problems = []
        try:
            ce = json.loads(body)
            data = ce["data"]
            key = (str(data["eventId"]).upper(), data["transition"], int(data["documentIncarnation"]))
            ce_id = ce["id"]
            if ce.get("specversion") != "1.0":
                problems.append("specversion")
            if ce.get("subject") != data["eventId"]:
                problems.append("subject != data.eventId")
            if not str(ce.get("type", "")).endswith(data["transition"]):
                problems.append("type does not end with the transition")
            if not headers.get("Content-Type", "").startswith("application/cloudevents+json"):
                problems.append("Content-Type")
            if not ts.isdigit() or abs(int(ts) - time.time()) > 60:
                problems.append("X-Bridge-Timestamp not within 60 s of now")
        except (ValueError, KeyError, TypeError):
            key = ce_id = None
        with self.cond:
            if not signed_ok:
                self.bad_signatures += 1
            for p in problems:
                self.violations[p] += 1
            if held:
                self.held += 1
            if key is None:
                self.unparsable += 1
            else:
                entry = self.copies.get(ce_id)
                if entry is None:
                    self.copies[ce_id] = {"keys": {key}, "n": 1, "first": t}
                    self.arrival_order.append((t, key[2]))
                else:
                    entry["keys"].add(key)
                    entry["n"] += 1
                self.keys[key].add(ce_id)
                self.first_by_key.setdefault(key, t)
            self.cond.notify_all()

    def start_outage(self, kind):
        with self.cond:
            self.mode = kind
            self.outage_windows[kind] += 1
            self._outage_t0 = time.monotonic()
        if kind == "refused":
            self.endpoint.stop()

    def end_outage(self):
        with self.cond:
            kind, self.mode = self.mode, None
            if kind is not None:
                self.outage_seconds[kind] += time.monotonic() - self._outage_t0
            self.cond.notify_all()
        if kind == "refused":
            self.endpoint.start()


# ---------------------------------------------------------------------------------------------
# Scenario: the IMDS document's evolution and the ground truth
# ---------------------------------------------------------------------------------------------
class Scenario:
    """Evolves the event list with its own seeded RNG. Each change touches an event at most once, so
    the intended transitions are exactly what comparing the two documents yields (docs/interface.md, "Transitions")."""

    MAX_LIVE = 6

    def __init__(self, rng):
        self.rng = rng
        self.live = {}        # EventId -> IMDS event (dict), in document order
        self.not_before = {}  # EventId -> epoch seconds of NotBefore while Scheduled
        self.expected = []    # (eventId, transition, incarnation)
        self.ops = collections.Counter()
        self.changes = 0

    def _new_id(self):
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4)).upper()

    def _scheduled_event(self, etype):
        eid = self._new_id()
        nb = int(time.time()) + self.rng.randint(5, 15) * 60
        self.not_before[eid] = nb
        user = etype in ("Reboot", "Redeploy") and self.rng.random() < 0.3
        return {
            "EventId": eid,
            "EventStatus": "Scheduled",
            "EventType": etype,
            "ResourceType": "VirtualMachine",
            "Resources": [VM_NAME, OTHER_VM] if self.rng.random() < 0.3 else [VM_NAME],
            "NotBefore": formatdate(nb, usegmt=True),
            "Description": ("Virtual machine is going to be restarted as requested by authorized user."
                            if user else f"Host server is undergoing maintenance ({etype}).")
                           if etype != "Preempt" else "Spot VM is being evicted.",
            "EventSource": "User" if user else "Platform",
            "DurationInSeconds": self.rng.choice((5, 9, 15, 30)) if etype == "Freeze" else -1,
        }

    def _hardware_failure(self):
        return {
            "EventId": self._new_id(),
            "EventStatus": "Started",
            "EventType": self.rng.choice(("Reboot", "Redeploy")),
            "ResourceType": "VirtualMachine",
            "Resources": [VM_NAME],
            "NotBefore": "",
            "Description": "Virtual machine is being restarted because of a hardware failure.",
            "EventSource": "Platform",
            "DurationInSeconds": -1,
        }

    def initial(self):
        """The document the agent finds at start: two Scheduled events and one hardware failure."""
        out = []
        for ev in (self._scheduled_event("Freeze"), self._scheduled_event("Reboot"), self._hardware_failure()):
            self.live[ev["EventId"]] = ev
            out.append((ev["EventId"], "Started" if ev["EventStatus"] == "Started" else "Scheduled"))
            self.ops["initial"] += 1
        return out

    def step(self):
        """Applies one change; returns the transitions it must produce, as (eventId, transition)."""
        rng = self.rng
        self.changes += 1
        if rng.random() < 0.05:  # nothing that matters changes: only the incarnation, or the order
            if len(self.live) > 1 and rng.random() < 0.5:
                items = list(self.live.items())
                rng.shuffle(items)
                self.live = dict(items)
                self.ops["reorder (no transition)"] += 1
            else:
                self.ops["incarnation only (no transition)"] += 1
            return []
        k = rng.choices((1, 2, 3), weights=(70, 22, 8))[0]
        touched, out = set(), []
        for _ in range(k):
            scheduled = [e for e, v in self.live.items() if v["EventStatus"] == "Scheduled" and e not in touched]
            started = [e for e, v in self.live.items() if v["EventStatus"] == "Started" and e not in touched]
            room = self.MAX_LIVE - len(self.live)
            ops = []
            if room >= 1:
                ops += [("add", 3.0), ("hardware-failure", 0.6)]
            if room >= 2:
                ops += [("add-several", 1.0)]
            if scheduled:
                ops += [("reschedule", 1.5), ("start", 2.0), ("cancel", 1.0)]
            if started:
                ops += [("complete", 2.5), ("edit-started", 0.3)]
            if not ops:
                break
            op = rng.choices([o for o, _ in ops], weights=[w for _, w in ops])[0]
            self.ops[op] += 1
            if op in ("add", "add-several"):
                n = 1 if op == "add" else rng.randint(2, min(3, room))
                etype = rng.choice(EVENT_TYPES)
                for _ in range(n):  # several VMs' worth of one platform maintenance
                    ev = self._scheduled_event(etype)
                    self.live[ev["EventId"]] = ev
                    touched.add(ev["EventId"])
                    out.append((ev["EventId"], "Scheduled"))
            elif op == "hardware-failure":
                ev = self._hardware_failure()
                self.live[ev["EventId"]] = ev
                touched.add(ev["EventId"])
                out.append((ev["EventId"], "Started"))
            elif op == "reschedule":
                eid = rng.choice(scheduled)
                ev = dict(self.live[eid])
                what = rng.choice(("NotBefore", "Description", "DurationInSeconds", "Resources"))
                if what == "DurationInSeconds" and ev["EventType"] != "Freeze":
                    what = "NotBefore"
                if what == "NotBefore":
                    self.not_before[eid] += rng.randint(2, 20) * 60
                    ev["NotBefore"] = formatdate(self.not_before[eid], usegmt=True)
                elif what == "Description":
                    ev["Description"] = re.sub(r"( \(update \d+\))?$", f" (update {self.changes})", ev["Description"], 1)
                elif what == "DurationInSeconds":
                    ev["DurationInSeconds"] = rng.choice([d for d in (5, 9, 15, 30) if d != ev["DurationInSeconds"]])
                else:
                    ev["Resources"] = [VM_NAME] if len(ev["Resources"]) > 1 else [VM_NAME, OTHER_VM]
                self.live[eid] = ev
                touched.add(eid)
                out.append((eid, "Rescheduled"))
            elif op == "start":
                eid = rng.choice(scheduled)
                self.live[eid] = {**self.live[eid], "EventStatus": "Started", "NotBefore": ""}
                touched.add(eid)
                out.append((eid, "Started"))
            elif op == "cancel":
                eid = rng.choice(scheduled)
                del self.live[eid]
                touched.add(eid)
                out.append((eid, "Cancelled"))
            elif op == "complete":
                eid = rng.choice(started)
                del self.live[eid]
                touched.add(eid)
                out.append((eid, "Completed"))
            elif op == "edit-started":  # Started → Started with another Description: no transition
                eid = rng.choice(started)
                self.live[eid] = {**self.live[eid], "Description": f"In progress (update {self.changes})."}
                touched.add(eid)
        return out

    def document_events(self):
        return [dict(v) for v in self.live.values()]


def change_when_ready(imds, scenario, agent, initial=False):
    """Waits (Condition) until no fault is on and the agent has fetched the current document, then
    applies the next change in the same critical section. Returns the new incarnation."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    with imds.cond:
        for _ in range(int(READY_TIMEOUT_S / 0.05) + 100):  # bounded
            if initial or imds.observed_locked():
                transitions = scenario.initial() if initial else scenario.step()
                inc = imds.publish_locked(scenario.document_events())
                scenario.expected += [(e, tr, inc) for e, tr in transitions]
                return inc
            if _SHUTDOWN.is_set():
                raise SoakFailure("interrupted")
            if not agent.alive():
                raise SoakFailure(f"the agent exited (code {agent.proc.returncode}); log tail:\n{agent.log_tail()}")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            imds.cond.wait(min(remaining, 0.5))
        raise SoakFailure(f"the agent did not fetch document {imds.incarnation} within {READY_TIMEOUT_S} s "
                          f"(fault now: {imds.fault}; last fetched: {imds.ok_incarnation}); log tail:\n"
                          f"{agent.log_tail()}")


# ---------------------------------------------------------------------------------------------
# Fault rotation threads
# ---------------------------------------------------------------------------------------------
class Rotation(threading.Thread):
    """Every gap seconds, one window of one kind (kinds cycle, shuffled per cycle)."""

    def __init__(self, name, kinds, start_fn, end_fn, gap, length, rng, stop):
        super().__init__(name=name, daemon=True)
        self.kinds, self.start_fn, self.end_fn = kinds, start_fn, end_fn
        self.gap, self.length, self.rng, self.stop = gap, length, rng, stop
        self.error = None
        self.current = None

    def run(self):
        cycle = []
        try:
            for _ in range(100_000):  # bounded
                if self.stop.wait(self.rng.uniform(*self.gap)):
                    return
                if not cycle:
                    cycle = list(self.kinds)
                    self.rng.shuffle(cycle)
                kind = cycle.pop()
                self.current = kind
                self.start_fn(kind)
                try:
                    stopped = self.stop.wait(self.rng.uniform(*self.length))
                finally:
                    self.end_fn()
                    self.current = None
                if stopped:
                    return
        except Exception as e:  # reported by the main thread
            self.error = e
            progress(f"{self.name}: {e!r}")


# ---------------------------------------------------------------------------------------------
# The agent process
# ---------------------------------------------------------------------------------------------
class Agent(benchlib.AgentProcess):
    def __init__(self, java, jar, java_opts, workdir, env_extra):
        super().__init__(None, java, jar, java_opts, workdir, env_extra, os.path.join(workdir, "agent.log"),
                         tempfile.mkdtemp(prefix="state-", dir=workdir), STOP_GRACE_S)


# ---------------------------------------------------------------------------------------------
# Probes (/proc, jcmd, the agent's /metrics)
# ---------------------------------------------------------------------------------------------
CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "Threads"):
                out[key] = int(value.split()[0])
    return out


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def dir_usage(path):
    """(files, bytes) under path; spool files separately."""
    files = size = spool = 0
    for root, _dirs, names in os.walk(path):
        for n in names:
            files += 1
            if os.sep + "spool" in root[len(path):]:
                spool += 1
            try:
                size += os.path.getsize(os.path.join(root, n))
            except OSError:
                pass
    return files, size, spool


class HeapProbe:
    """Full GC then GC.heap_info in one jcmd call (commands from a file): heap used after GC."""

    def __init__(self, jcmd, workdir):
        self.jcmd = jcmd
        self.cmdfile = os.path.join(workdir, "jcmd-gc.txt")
        with open(self.cmdfile, "w") as f:
            f.write("GC.run\nGC.heap_info\n")
        self.failures = 0

    def sample(self, pid):
        """(heap used KiB, heap committed KiB, metaspace used KiB) or None."""
        if not self.jcmd:
            return None
        try:
            out = subprocess.run([self.jcmd, "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1", "-J-Xss512k",
                                  str(pid), "-f", self.cmdfile],
                                 capture_output=True, text=True, timeout=60).stdout
        except (subprocess.TimeoutExpired, OSError):
            self.failures += 1
            return None
        pairs = re.findall(r"total (\d+)K, used (\d+)K", out)
        if not pairs:
            self.failures += 1
            return None
        meta = re.search(r"Metaspace\s+used (\d+)K", out)
        return (sum(int(u) for _, u in pairs), sum(int(t) for t, _ in pairs),
                int(meta.group(1)) if meta else None)


def scrape_metrics(port):
    """{series: value} of the agent's bridge_* meters from /metrics, or {} when unavailable."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
            text = r.read().decode("utf-8", "replace")
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        if line.startswith("bridge_"):
            series, _, value = line.rpartition(" ")
            series = re.sub(r'camelContext="[^"]*",?', "", series).replace(",}", "}").replace("{}", "")
            try:
                out[series] = float(value)
            except ValueError:
                pass
    return out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# Sampler thread
# ---------------------------------------------------------------------------------------------
CSV_FIELDS = ("t_s", "phase", "rss_kib", "hwm_kib", "threads", "fds", "cpu_pct", "heap_after_gc_kib",
              "heap_committed_kib", "metaspace_kib", "state_files", "state_bytes", "spool_files",
              "imds_gets", "changes", "expected", "a_ids", "b_ids", "imds_fault", "a_outage")


class Sampler(threading.Thread):
    def __init__(self, agent, imds, hook_a, hook_b, scenario, heap_probe, every, gc_every, csv_path, t0):
        super().__init__(name="sampler", daemon=True)
        self.agent, self.imds, self.a, self.b, self.scenario = agent, imds, hook_a, hook_b, scenario
        self.heap_probe, self.every, self.gc_every = heap_probe, every, gc_every
        self.t0 = t0
        self.stop = threading.Event()
        self.samples = []
        self.phase = "run"
        self.rotations = ()
        self.lock = threading.Lock()
        self.csv_file = open(csv_path, "w", newline="")
        register_cleanup(self.csv_file.close)
        self.csv = csv.DictWriter(self.csv_file, fieldnames=CSV_FIELDS)
        self.csv.writeheader()
        self._last_cpu = None
        self._last_gc = None
        self._last_progress = None
        self.error = None

    def sample_once(self, force_gc=False):
        now = time.monotonic()
        pid = self.agent.pid
        try:
            st = proc_status(pid)
            fds = fd_count(pid)
            ticks = cpu_ticks(pid)
        except OSError:
            return None
        cpu = None
        if self._last_cpu is not None and now > self._last_cpu[0]:
            cpu = (ticks - self._last_cpu[1]) / CLK_TCK / (now - self._last_cpu[0]) * 100
        heap = None
        if force_gc or self._last_gc is None or now - self._last_gc >= self.gc_every - 0.5:
            heap = self.heap_probe.sample(pid)
            self._last_gc = now
            # the jcmd attach costs the agent CPU: start the next CPU interval after it
            try:
                ticks = cpu_ticks(pid)
            except OSError:
                return None
            now_cpu = time.monotonic()
        else:
            now_cpu = now
        self._last_cpu = (now_cpu, ticks)
        files, size, spool = dir_usage(self.agent.state_dir)
        with self.imds.cond:
            gets, fault = self.imds.gets, self.imds.fault
        with self.a.cond:
            a_ids, outage = len(self.a.copies), self.a.mode
        with self.b.cond:
            b_ids = len(self.b.copies)
        row = {
            "t_s": round(now - self.t0, 1), "phase": self.phase,
            "rss_kib": st.get("VmRSS"), "hwm_kib": st.get("VmHWM"), "threads": st.get("Threads"), "fds": fds,
            "cpu_pct": None if cpu is None else round(cpu, 2),
            "heap_after_gc_kib": heap[0] if heap else None, "heap_committed_kib": heap[1] if heap else None,
            "metaspace_kib": heap[2] if heap else None,
            "state_files": files, "state_bytes": size, "spool_files": spool,
            "imds_gets": gets, "changes": self.scenario.changes, "expected": len(self.scenario.expected),
            "a_ids": a_ids, "b_ids": b_ids, "imds_fault": fault or "", "a_outage": outage or "",
        }
        with self.lock:
            self.samples.append(row)
            self.csv.writerow(row)
            self.csv_file.flush()
        if self._last_progress is None or now - self._last_progress >= 30:
            self._last_progress = now
            progress(f"t={row['t_s']:.0f}s changes {row['changes']}, expected {row['expected']}, "
                     f"A {a_ids} / B {b_ids} ids; RSS {st.get('VmRSS', 0) / 1024:.0f} MiB, threads "
                     f"{st.get('Threads')}, fds {fds}"
                     + (f", heap after GC {heap[0] / 1024:.1f} MiB" if heap else "")
                     + (f"; IMDS fault {fault}" if fault else "") + (f"; A outage {outage}" if outage else ""))
        return row

    def run(self):
        try:
            for _ in range(10_000_000):  # bounded
                if not self.agent.alive():
                    return
                self.sample_once()
                if self.stop.wait(self.every):
                    return
        except Exception as e:
            self.error = e
            progress(f"sampler: {e!r}")


# ---------------------------------------------------------------------------------------------
# Analysis
# ---------------------------------------------------------------------------------------------
def slope_per_hour(points):
    """Least-squares slope of (t_s, value) in value units per hour, or None."""
    if len(points) < 3:
        return None
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx * 3600


# (metric column, label, scale divisor, unit, rule kind, tolerance)
FLAT_METRICS = (
    ("threads", "threads", 1, "", "max+", 3),
    ("fds", "open file descriptors", 1, "", "max+", 8),
    ("rss_kib", "RSS (VmRSS)", 1024, "MiB", "median%", 10),
    ("heap_after_gc_kib", "heap used after full GC", 1024, "MiB", "median%", 10),
    ("metaspace_kib", "metaspace used", 1024, "MiB", None, None),
    ("cpu_pct", "agent CPU (% of one core)", 1, "%", None, None),
    ("state_bytes", "state dir size", 1024, "KiB", None, None),
)


def flatness(samples, warmup, window, end):
    first = (warmup, warmup + window)
    last = (end - window, end + 1e-6)
    rows, checks = [], []
    for col, label, div, unit, rule, tol in FLAT_METRICS:
        pts = [(s["t_s"], s[col] / div) for s in samples
               if s["phase"] == "run" and s[col] not in (None, "") and s["t_s"] >= warmup]
        w1 = [v for t, v in pts if first[0] <= t < first[1]]
        w2 = [v for t, v in pts if last[0] <= t < last[1]]
        slope = slope_per_hour(pts)
        fmt = (lambda v: f"{v:.0f}") if div == 1 and unit != "%" else (lambda v: f"{v:.1f}")
        desc = lambda w: f"{fmt(min(w))} / {fmt(statistics.median(w))} / {fmt(max(w))} (n={len(w)})" if w else "n/a"
        verdict, rule_text = "—", "info"
        if rule == "max+":
            rule_text = f"max(last) ≤ max(first) + {tol}"
            ok = bool(w1 and w2) and max(w2) <= max(w1) + tol
        elif rule == "median%":
            rule_text = f"median(last) ≤ median(first) × {1 + tol / 100:.2f}"
            ok = bool(w1 and w2) and statistics.median(w2) <= statistics.median(w1) * (1 + tol / 100)
        if rule:
            verdict = "✅" if ok else "❌"
            checks.append((f"flat: {label} ({rule_text})", ok,
                           f"first {desc(w1)}, last {desc(w2)}" if w1 and w2 else "not enough samples"))
        rows.append((label + (f" [{unit}]" if unit else ""), desc(w1), desc(w2),
                     "n/a" if slope is None else f"{slope:+.2f}", rule_text, verdict))
    return first, last, rows, checks


def verify_receiver(recv, expected, logged):
    """Compares what recv got with the expected set of (eventId, transition, incarnation)."""
    with recv.cond:
        keys = {k: set(v) for k, v in recv.keys.items()}
        copies = {c: {"keys": set(e["keys"]), "n": e["n"]} for c, e in recv.copies.items()}
        order = list(recv.arrival_order)
    exp = set(expected)
    missing = sorted(exp - keys.keys())
    unexpected = sorted(keys.keys() - exp)
    split = {k: ids for k, ids in keys.items() if len(ids) > 1}
    inconsistent = [c for c, e in copies.items() if len(e["keys"]) > 1]
    total = sum(e["n"] for e in copies.values())
    dup_ids = sum(1 for e in copies.values() if e["n"] > 1)
    order.sort()
    inversions = sum(1 for (_, a), (_, b) in zip(order, order[1:]) if b < a)

    def why(k):
        return f"{k[1]} {k[0]} @inc {k[2]}" + ("" if k in logged or (k[0], k[1]) in logged
                                               else " (not in the agent's transition log)")
    return {
        "missing": missing, "unexpected": unexpected, "split": split, "inconsistent": inconsistent,
        "distinct": len(copies), "copies": total, "duplicates": total - len(copies), "dup_ids": dup_ids,
        "inversions": inversions, "why": why,
    }


_LOG_TRANSITION = re.compile(r"\stransitions - (\w+) \S+ ([0-9A-Fa-f-]{36})")


def logged_transitions(log_path):
    """{(eventId, transition)} the agent logged (the log line carries no incarnation)."""
    out = set()
    try:
        with open(log_path, "r", errors="replace") as f:
            for line in f:
                m = _LOG_TRANSITION.search(line)
                if m:
                    out.add((m.group(2).upper(), m.group(1)))
    except OSError:
        pass
    return out


def log_levels(log_path):
    counts = collections.Counter()
    firsts = {}
    try:
        with open(log_path, "r", errors="replace") as f:
            for line in f:
                m = re.search(r"Z (WARN|ERROR|FATAL) ", line)
                if m:
                    counts[m.group(1)] += 1
                    firsts.setdefault(m.group(1), line.strip()[:240])
                if "OutOfMemoryError" in line or "Exception in thread" in line:
                    counts["fatal-pattern"] += 1
                    firsts.setdefault("fatal-pattern", line.strip()[:240])
    except OSError:
        pass
    return counts, firsts


def machine(java):
    cpu = mem = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "?")
        with open("/proc/meminfo") as f:
            mem = f"{next(int(ln.split()[1]) for ln in f if ln.startswith('MemTotal')) / 1024 / 1024:.1f} GiB"
    except (OSError, StopIteration):
        pass
    try:
        jv = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr.splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        jv = "?"
    return f"{len(os.sched_getaffinity(0))} CPUs ({cpu}), {mem} RAM, kernel {platform.release()}, `{jv}`"


def md_table(header, rows):
    esc = lambda c: str(c).replace("|", "\\|").replace("\n", " ")
    return ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"] + \
           ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]


def latency_text(values):
    if not values:
        return "n/a"
    return f"{pct(values, 50) * 1000:.0f} / {pct(values, 99) * 1000:.0f} / {max(values) * 1000:.0f} ms"


# ---------------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jar", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                  "target", "scheduled-events-bridge.jar"),
                    help="agent fat jar, copied to a scratch dir first (default: target/scheduled-events-bridge.jar)")
    ap.add_argument("--duration", type=int, help="seconds of load (default 1800; --quick 180)")
    ap.add_argument("--seed", type=int, help="scenario/fault seed (default: time-based, printed)")
    ap.add_argument("--sample-every", type=float, help="seconds between samples (default 10; --quick 5)")
    ap.add_argument("--gc-every", type=float, help="seconds between full-GC heap samples via jcmd "
                    "(default 60; --quick 20)")
    ap.add_argument("--quick", action="store_true", help="smoke test: 180 s, faster fault rotation")
    ap.add_argument("--results", help="results directory (default: bench/results next to this script)")
    ap.add_argument("--argfile", default=benchlib.SHIPPED_JVM_OPTIONS,
                    help="the agent's JVM options, a JDK @argfile (default: the shipped packaging/jvm.options, "
                         "without the CDS archive; 'none' = the JVM's defaults); SOAK_JAVA_OPTS adds flags after "
                         "it, which win")
    args = ap.parse_args()

    quick = args.quick
    duration = args.duration or (180 if quick else 1800)
    sample_every = args.sample_every or (5 if quick else 10)
    gc_every = args.gc_every or (20 if quick else 60)
    if not 60 <= duration <= 24 * 3600 or not 1 <= sample_every <= 300 or not 5 <= gc_every <= 3600:
        ap.error("--duration must be 60..86400, --sample-every 1..300, --gc-every 5..3600")
    seed = args.seed if args.seed is not None else int(time.time())
    fault_gap, fault_len = ((5, 10), (2, 6)) if quick else ((25, 45), (3, 15))
    outage_gap, outage_len = ((8, 15), (10, 25)) if quick else ((30, 90), (20, 90))
    warmup = 120 if duration >= 600 else max(20, duration // 6)
    window = min(300, (duration - warmup) / 2)

    benchlib.install_signal_handlers()

    java = shutil.which("java")
    if not java:
        print("java not found on PATH", file=sys.stderr)
        return 2
    if args.argfile != "none" and not os.path.isfile(args.argfile):
        ap.error(f"--argfile {args.argfile}: no such file")
    java_opts_raw = os.environ.get("SOAK_JAVA_OPTS", "").strip()
    java_opts = benchlib.agent_jvm_options(args.argfile, java_opts_raw)
    jcmd = jcmd_path(java)
    results = os.path.abspath(args.results or os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    os.makedirs(results, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    csv_path = os.path.join(results, f"soak-{stamp}.csv")
    workdir = tempfile.mkdtemp(prefix=f"soak-{stamp}-", dir="/tmp")
    progress(f"seed {seed}, duration {duration} s, scratch dir {workdir} (agent log stays there)")

    def remove_scratch():  # keep the log for post-mortems, drop the jar copy and the state dir
        for name in os.listdir(workdir):
            path = os.path.join(workdir, name)
            if name in ("agent.jar", "jcmd-gc.txt"):
                os.remove(path)
            elif name.startswith("state-"):
                shutil.rmtree(path, ignore_errors=True)
    register_cleanup(remove_scratch)

    checks = []        # (name, ok, detail)
    notes = []
    failure = None
    jar = os.path.abspath(args.jar)
    agent = imds = hook_a = hook_b = scenario = sampler = None
    rot_imds = rot_sink = None
    t0 = t_end_load = None
    metrics0, metrics1 = {}, {}
    lat = {}
    sha = None
    try:
        jar_copy, sha = snapshot_jar(jar, workdir)
        rng = random.Random(seed)
        scenario = Scenario(random.Random(rng.getrandbits(64)))
        rng_imds = random.Random(rng.getrandbits(64))
        rng_sink = random.Random(rng.getrandbits(64))
        imds = ScriptedImds()
        hook_a = WebhookReceiver("A")
        hook_b = WebhookReceiver("B")
        mgmt_port = free_port()
        agent = Agent(java, jar_copy, java_opts, workdir, {
            "BRIDGE_IMDS_URL": f"{imds.base}/metadata/scheduledevents",
            "BRIDGE_IMDS_INSTANCE_URL": f"{imds.base}/metadata/instance/compute",
            "BRIDGE_IMDS_POLL_INTERVAL": str(POLL_INTERVAL_MS),
            "BRIDGE_IMDS_MAX_BACKOFF": str(IMDS_MAX_BACKOFF_MS),
            "BRIDGE_DELIVERY_MAX_BACKOFF": str(DELIVERY_MAX_BACKOFF_MS),
            "BRIDGE_WEBHOOK_URLS": f"{hook_a.url},{hook_b.url}",
            "BRIDGE_WEBHOOK_SECRET": WEBHOOK_SECRET,
            "BRIDGE_MANAGEMENT_PORT": str(mgmt_port),
        })
        # The agent finds three events at its very first poll (fresh state: each reported once).
        change_when_ready(imds, scenario, agent, initial=True)
        agent.start()
        if not wait_until(imds.cond, lambda: imds.ok_incarnation >= 1, FIRST_POLL_TIMEOUT_S, agent, "the first poll"):
            raise SoakFailure(f"no successful IMDS poll within {FIRST_POLL_TIMEOUT_S} s; log tail:\n{agent.log_tail()}")
        t0 = time.monotonic()
        progress(f"first poll {t0 - agent.t_spawn:.1f} s after spawn; load for {duration} s "
                 f"(flatness: first window {warmup:.0f}–{warmup + window:.0f} s vs last {duration - window:.0f}–{duration} s)")
        sampler = Sampler(agent, imds, hook_a, hook_b, scenario, HeapProbe(jcmd, workdir), sample_every,
                          gc_every, csv_path, t0)
        sampler.start()
        register_cleanup(sampler.stop.set)
        stop_faults = threading.Event()
        register_cleanup(stop_faults.set)
        rot_imds = Rotation("imds-faults", IMDS_FAULTS, imds.start_fault, imds.end_fault, fault_gap, fault_len,
                            rng_imds, stop_faults)
        rot_sink = Rotation("sink-outages", SINK_OUTAGES, hook_a.start_outage, hook_a.end_outage, outage_gap,
                            outage_len, rng_sink, stop_faults)
        rot_imds.start()
        rot_sink.start()
        metrics0 = scrape_metrics(mgmt_port)

        # --- load: one change every 1-3 s, only once the agent has seen the previous one ----------
        t_end = t0 + duration
        for _ in range(duration * 10):  # bounded
            delay = scenario.rng.uniform(1.0, 3.0)
            if time.monotonic() + delay >= t_end:
                break
            pause(delay, agent)
            for r in (rot_imds, rot_sink, sampler):
                if r.error:
                    raise SoakFailure(f"{r.name} failed: {r.error!r}")
            change_when_ready(imds, scenario, agent)
        pause(max(0.0, t_end - time.monotonic()), agent)
        t_end_load = time.monotonic()

        # --- drain ------------------------------------------------------------------------------
        progress(f"load done ({scenario.changes} changes, {len(scenario.expected)} transitions expected); draining")
        sampler.phase = "drain"
        stop_faults.set()
        rot_imds.join(timeout=30)
        rot_sink.join(timeout=30)
        imds.release.set()
        hook_a.release.set()
        for r in (rot_imds, rot_sink):
            if r.error:
                raise SoakFailure(f"{r.name} failed: {r.error!r}")
        if not wait_until(imds.cond, imds.observed_locked, READY_TIMEOUT_S, agent, "the last document"):
            raise SoakFailure(f"the agent did not fetch the last document within {READY_TIMEOUT_S} s")
        t_drain = time.monotonic()
        expected_set = set(scenario.expected)
        for hook in (hook_a, hook_b):
            remaining = max(1.0, t_drain + DRAIN_TIMEOUT_S - time.monotonic())
            if not wait_until(hook.cond, lambda: expected_set <= hook.keys.keys(), remaining, agent,
                              f"receiver {hook.name} to have every transition"):
                notes.append(f"drain: receiver {hook.name} still lacked transitions after {DRAIN_TIMEOUT_S} s")
        spool_empty = lambda: dir_usage(agent.state_dir)[2] == 0
        remaining = max(1.0, t_drain + DRAIN_TIMEOUT_S - time.monotonic())
        drained = wait_until(hook_a.cond, spool_empty, remaining, agent, "the spool to empty")
        progress(f"drained in {time.monotonic() - t_drain:.1f} s; settling {SETTLE_S} s for stray messages")
        pause(SETTLE_S, agent)
        checks.append(("spool empty after the drain", drained and spool_empty(),
                       f"{dir_usage(agent.state_dir)[2]} file(s) left in {agent.state_dir}/spool"))
        sampler.stop.set()
        sampler.join(timeout=120)
        sampler.phase = "end"
        sampler.sample_once(force_gc=True)
        metrics1 = scrape_metrics(mgmt_port)
    except SoakFailure as e:
        failure = str(e)
        progress(f"FAILED: {failure.splitlines()[0]}")
    finally:
        if sampler is not None:
            sampler.stop.set()
        exit_code = agent.stop() if agent is not None and agent.proc is not None else None

    # ------------------------------------------------------------------------------------------
    # Verdicts and report
    # ------------------------------------------------------------------------------------------
    if failure:
        checks.insert(0, ("soak ran to the end", False, failure.splitlines()[0]))
    if agent is not None and agent.proc is not None:
        checks.append((f"SIGTERM → exit within {STOP_GRACE_S} s, code 0 or 143", exit_code in CLEAN_EXIT_CODES
                       and agent.stop_seconds is not None and agent.stop_seconds < STOP_GRACE_S,
                       f"exit code {exit_code} after {agent.stop_seconds or 0:.1f} s"))
    logged = logged_transitions(agent.log_path) if agent else set()
    logged_keys = {(e, t) for e, t in logged}
    verdicts = {}
    if scenario is not None and hook_a is not None and t_end_load is not None:
        for hook in (hook_a, hook_b):
            v = verify_receiver(hook, scenario.expected, logged_keys)
            verdicts[hook.name] = v
            n = hook.name
            checks.append((f"{n}: every expected transition delivered", not v["missing"],
                           f"{len(v['missing'])} missing" + (": " + "; ".join(v["why"](k) for k in v["missing"][:5])
                                                            if v["missing"] else "")))
            checks.append((f"{n}: nothing invented (no unexpected transition)", not v["unexpected"],
                           f"{len(v['unexpected'])} unexpected" + (": " + "; ".join(
                               v["why"](k) for k in v["unexpected"][:5]) if v["unexpected"] else "")))
            checks.append((f"{n}: one CloudEvent id per transition (copies dedupable by id)",
                           not v["split"] and not v["inconsistent"],
                           f"{len(v['split'])} transitions under several ids, {len(v['inconsistent'])} ids "
                           f"naming several transitions"))
            with hook.cond:
                checks.append((f"{n}: signatures valid, bodies parsable, CloudEvents shape",
                               hook.bad_signatures == 0 and hook.unparsable == 0 and not hook.violations,
                               f"{hook.bad_signatures} bad signatures, {hook.unparsable} unparsable, "
                               f"violations {dict(hook.violations) or 'none'}"))
            # latency: IMDS's first successful answer with the change → first arrival at the receiver
            lat[n] = [hook.first_by_key[k] - imds.first_ok[k[2]] for k in scenario.expected
                      if k in hook.first_by_key and k[2] in imds.first_ok]
        b_max = max(lat["B"]) if lat.get("B") else None
        checks.append((f"isolation: B's worst IMDS answer → arrival ≤ {ISOLATION_MAX_S:.0f} s while A had outages",
                       b_max is not None and b_max <= ISOLATION_MAX_S,
                       "n/a" if b_max is None else f"max {b_max:.2f} s"))
        kinds_ok = all(imds.fault_windows[k] for k in IMDS_FAULTS) and all(hook_a.outage_windows[k] for k in SINK_OUTAGES)
        checks.append(("every IMDS fault kind and every sink outage kind exercised at least once", kinds_ok,
                       f"IMDS {sum(1 for k in IMDS_FAULTS if imds.fault_windows[k])}/{len(IMDS_FAULTS)}, "
                       f"sink {sum(1 for k in SINK_OUTAGES if hook_a.outage_windows[k])}/{len(SINK_OUTAGES)}"))
    flat_rows, first_w, last_w = [], None, None
    if sampler is not None and t_end_load is not None:
        first_w, last_w, flat_rows, flat_checks = flatness(sampler.samples, warmup, window, duration)
        checks += flat_checks
        if sampler.heap_probe.failures:
            notes.append(f"jcmd heap sample failed {sampler.heap_probe.failures} time(s)")
    levels, firsts = log_levels(agent.log_path) if agent else ({}, {})
    if agent is not None and agent.proc is not None:
        checks.append(("agent log: no ERROR, OutOfMemoryError or uncaught exception",
                       not levels.get("ERROR") and not levels.get("FATAL") and not levels.get("fatal-pattern"),
                       f"WARN {levels.get('WARN', 0)}, ERROR {levels.get('ERROR', 0)}, "
                       f"fatal patterns {levels.get('fatal-pattern', 0)}"
                       + (f"; first: {firsts.get('ERROR') or firsts.get('fatal-pattern')}"
                          if levels.get("ERROR") or levels.get("fatal-pattern") else "")))
    passed = bool(checks) and all(ok for _, ok, _ in checks) and failure is None

    lines = [f"# scheduled-events-bridge soak — {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M:%S} UTC", "",
             f"**Verdict: {'PASS ✅' if passed else 'FAIL ❌'}**", ""]
    lines += [
        f"- **Jar**: `{jar}`" + (f" (a copy, sha256 `{sha[:16]}…`)" if sha else ""),
        f"- **JVM options**: {benchlib.describe_jvm_options(args.argfile, java_opts_raw, 'SOAK_JAVA_OPTS')}",
        f"- **Machine**: {machine(java)}; load average at the end {open('/proc/loadavg').read().split()[0]}",
        f"- **Run**: {'quick, ' if quick else ''}{duration} s of load (seed {seed}); poll interval {POLL_INTERVAL_MS} ms; "
        f"bridge.imds.max-backoff {IMDS_MAX_BACKOFF_MS} ms, bridge.delivery.max-backoff {DELIVERY_MAX_BACKOFF_MS} ms, "
        f"agent timeouts left at their defaults (IMDS {IMDS_TIMEOUT_S:.0f} s, webhook {WEBHOOK_TIMEOUT_S:.0f} s); "
        f"IMDS fault every {fault_gap[0]}–{fault_gap[1]} s for {fault_len[0]}–{fault_len[1]} s; "
        f"webhook A outage every {outage_gap[0]}–{outage_gap[1]} s for {outage_len[0]}–{outage_len[1]} s; "
        f"B always healthy; samples every {sample_every:g} s, full GC + heap every {gc_every:g} s",
        f"- **Files**: samples `{csv_path}`, agent log `{agent.log_path if agent else '?'}`",
        "",
    ]
    if imds is not None and scenario is not None:
        exp_by = collections.Counter(t for _, t, _ in scenario.expected)
        rows = [
            ("changes (documents published after the initial one)", f"{scenario.changes} "
             f"(incarnation 1 → {imds.incarnation}); ops: " + ", ".join(f"{k} {v}" for k, v in sorted(scenario.ops.items()))),
            ("IMDS scheduledevents GETs: total / answered OK / faulted",
             f"{imds.gets} / {len(imds.ok_times)} / {sum(v for k, v in imds.counts.items() if k.startswith('GETs answered'))}"
             ""),
            ("most IMDS GETs within any 1 s (both ends included), by what IMDS was doing (IMDS allows 5/s; "
             "6 = one per 200 ms poll)", ", ".join(
                f"{k} {v}" for k, v in sorted(imds.max_gets_per_s.items(), key=lambda kv: -kv[1]))),
            ("IMDS fault windows: kind count/seconds [faulted GETs]", ", ".join(
                f"{k} {imds.fault_windows[k]}/{imds.fault_seconds[k]:.0f}s [{imds.counts.get(faulted_key(k), 0)}]"
                for k in IMDS_FAULTS)),
            ("IMDS other", ", ".join(f"{k} {v}" for k, v in sorted(imds.counts.items())
                                     if not k.startswith("GETs answered")) or "—"),
        ]
        polls = {k: v - metrics0.get(k, 0) for k, v in metrics1.items() if k.startswith("bridge_imds_polls_total")}
        if metrics1:
            rows.append(("agent's own poll outcomes during the load (bridge_imds_polls_total)",
                         ", ".join(f"{label_of(k, 'outcome')} {v:.0f}" for k, v in sorted(polls.items())) or "—"))
        if hook_a is not None:
            rows.append(("webhook A outages: kind count/seconds", ", ".join(
                f"{k} {hook_a.outage_windows[k]}/{hook_a.outage_seconds[k]:.0f}s" for k in SINK_OUTAGES)
                + f"; answers refused {dict(hook_a.refused) or 0}, requests held (hang) {hook_a.held}"))
        rows.append(("transitions expected, by type", f"{len(scenario.expected)}: " + ", ".join(
            f"{t} {exp_by[t]}" for t in TRANSITIONS)))
        for name, v in verdicts.items():
            rows.append((f"receiver {name}: distinct CloudEvent ids / copies / duplicate copies (ids with >1 copy)",
                         f"{v['distinct']} / {v['copies']} / {v['duplicates']} ({v['dup_ids']})"))
            rows.append((f"receiver {name}: missing / unexpected / split ids; arrival-order inversions (info)",
                         f"{len(v['missing'])} / {len(v['unexpected'])} / {len(v['split'])}; {v['inversions']}"))
            rows.append((f"receiver {name}: IMDS answer → first arrival, p50 / p99 / max", latency_text(lat.get(name))))
        if metrics1:
            deliveries = {k: v - metrics0.get(k, 0) for k, v in metrics1.items() if k.startswith("bridge_deliveries_total")}
            rows.append(("agent's delivery counters during the load (bridge_deliveries_total)",
                         ", ".join(f"{k.partition('{')[2].rstrip('}') or k} {v:.0f}" for k, v in sorted(deliveries.items()))))
        lines += ["## Counts", ""] + md_table(("figure", "value"), rows) + [""]
    if flat_rows:
        lines += [f"## Flatness: first window {first_w[0]:.0f}–{first_w[1]:.0f} s vs last window "
                  f"{last_w[0]:.0f}–{duration} s (after {warmup} s warm-up)", "",
                  "min / median / max per window; slope = least squares over everything after the warm-up, per hour.", ""]
        lines += md_table(("metric", "first window", "last window", "slope /h", "rule", "verdict"), flat_rows) + [""]
    lines += ["## Checks", ""] + md_table(("check", "verdict", "detail"),
                                          [(n, "✅" if ok else "❌", d) for n, ok, d in checks]) + [""]
    if notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
    for name, v in verdicts.items():
        if v["missing"] or v["unexpected"] or v["split"]:
            lines += [f"### Receiver {name}: details", ""]
            lines += [f"- missing: {v['why'](k)}" for k in v["missing"][:50]]
            lines += [f"- unexpected: {v['why'](k)}" for k in v["unexpected"][:50]]
            lines += [f"- split: {k} → {sorted(ids)}" for k, ids in list(v["split"].items())[:20]]
            lines.append("")
    text = "\n".join(lines) + "\n"
    print(text)
    for path in (os.path.join(results, "soak-latest.md"), os.path.join(results, f"soak-{stamp}.md")):
        with open(path, "w") as f:
            f.write(text)
    if scenario is not None and imds is not None:  # raw material for post-mortems
        base = t0 or _STARTED
        with open(os.path.join(results, f"soak-{stamp}-raw.json"), "w") as f:
            json.dump({"seed": seed, "t0": "first successful poll", "expected": scenario.expected,
                       "published": {i: round(t - base, 3) for i, t in imds.t_published.items()},
                       "first_ok": {i: round(t - base, 3) for i, t in imds.first_ok.items()},
                       "imds_gets": [(round(t - base, 3), st) for t, st in imds.get_log],
                       "arrivals": {h.name: sorted((round(e["first"] - base, 3), c, sorted(e["keys"])[0])
                                                   for c, e in h.copies.items())
                                    for h in (hook_a, hook_b) if h is not None}}, f)
    progress(f"verdict {'PASS' if passed else 'FAIL'}; report {os.path.join(results, 'soak-latest.md')}")
    return 0 if passed else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        run_cleanups()
