"""Plumbing shared by bench/harness.py and bench/soak.py (python3 standard library only).

Progress lines, the clean-up registry (whatever is started is stopped exactly once: on normal exit, on an
exception, on SIGINT/SIGTERM and via atexit), interruptible waits, /proc and jcmd probes, percentiles, the jar
snapshot, the agent's JVM options, and the "all sinks" profile (Event Hubs, email with its local SMTP responder,
the approval API) that bench/harness.py and bench/footprint.py both configure. Each script names its progress
prefix with set_label() and installs the signal handlers.
"""

import atexit
import collections
import hashlib
import math
import os
import shlex
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The JVM options the agent ships with (a JDK @argfile, read by the Dockerfile, the systemd unit and
# bin/create-cds-archive too): the benchmarks measure the agent as it runs in production.
SHIPPED_JVM_OPTIONS = os.path.join(REPO, "packaging", "jvm.options")

STARTED = time.monotonic()
SHUTDOWN = threading.Event()    # set on SIGINT/SIGTERM: every wait below ends early
_label = "bench"


class Failure(Exception):
    """A measurement could not be completed."""


def read_argfile(path):
    """The options in a JDK @argfile as the java launcher reads them: white space separates them, '#' at the
    start of one comments out the rest of its line (the shipped file has no quotes)."""
    options = []
    with open(path) as f:
        for line in f:
            for word in line.split():
                if word.startswith("#"):
                    break
                options.append(word)
    return options


def agent_jvm_options(argfile, extra):
    """The agent's JVM options: @argfile (None or 'none': the JVM's defaults), then the extra flags (a
    shell-quoted string), which win where both set the same thing (java takes the last)."""
    opts = [] if argfile in (None, "none") else [f"@{os.path.abspath(argfile)}"]
    return opts + shlex.split(extra or "")


def describe_jvm_options(argfile, extra, extra_name):
    """For a report: the argfile, the flags it holds, and the extra ones."""
    if argfile in (None, "none"):
        text = "no argfile (the JVM's defaults)"
    else:
        text = f"`@{os.path.abspath(argfile)}` (`{' '.join(read_argfile(argfile))}`)"
    return text + (f" + {extra_name} `{extra.strip()}`" if extra and extra.strip() else f", no {extra_name}")


def set_label(label):
    global _label
    _label = label


def progress(msg):
    print(f"[{_label} +{time.monotonic() - STARTED:7.1f}s] {msg}", file=sys.stderr, flush=True)


_cleanups = []
_cleanup_lock = threading.Lock()


def register_cleanup(fn):
    with _cleanup_lock:
        _cleanups.append(fn)


def run_cleanups():
    with _cleanup_lock:
        fns, _cleanups[:] = list(reversed(_cleanups)), []
    for fn in fns:
        try:
            fn()
        except Exception as e:  # clean-up goes on whatever fails
            progress(f"cleanup error: {e!r}")


atexit.register(run_cleanups)


def _on_signal(signum, _frame):
    if SHUTDOWN.is_set():  # a second Ctrl-C must not interrupt the clean-up of the first
        return
    SHUTDOWN.set()
    raise SystemExit(128 + signum)


def install_signal_handlers():
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)


def run_script(label, body, workdir_prefix=None, keep=False):
    """A bench script's main once its arguments are read: the progress label and the signal handlers, then
    body(workdir) -> exit status, workdir a fresh scratch directory (None without workdir_prefix). A Failure ends
    it with '<label>: why' and status 1; whatever was started is stopped, the directory removed unless keep."""
    set_label(label)
    install_signal_handlers()
    workdir = tempfile.mkdtemp(prefix=workdir_prefix) if workdir_prefix else None
    try:
        return body(workdir)
    except Failure as e:
        print(f"{label}: {e}", file=sys.stderr)
        return 1
    finally:
        run_cleanups()
        if workdir and not keep:
            shutil.rmtree(workdir, ignore_errors=True)


def _agent_gone(agent, what=None):
    name = getattr(agent, "name", None)
    who = f"agent {name}" if name else "the agent"
    during = f" while waiting for {what}" if what else ""
    return Failure(f"{who} exited (code {agent.proc.returncode}){during}; log tail:\n{agent.log_tail()}")


def pause(seconds, agent=None):
    """An interruptible, bounded pause (Event wait, not sleep)."""
    if SHUTDOWN.wait(max(0.0, seconds)):
        raise Failure("interrupted")
    if agent is not None and not agent.alive():
        raise _agent_gone(agent)


def wait_until(cond, pred, timeout, agent, what, check=None):
    """Waits on `cond` until pred() (evaluated under the lock) holds; False on timeout.

    Wakes at least every 0.5 s only to notice a dead agent, a shutdown request or what `check` raises."""
    deadline = time.monotonic() + timeout
    with cond:
        for _ in range(int(timeout / 0.05) + 100):  # bounded; each turn is a wait or a return
            if pred():
                return True
            if SHUTDOWN.is_set():
                raise Failure("interrupted")
            if agent is not None and not agent.alive():
                raise _agent_gone(agent, what)
            if check is not None:
                check()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            cond.wait(min(remaining, 0.5))
        return pred()


def cpu_ticks(pid):
    """utime + stime of the whole process (all threads), in clock ticks."""
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    fields = stat[stat.rindex(")") + 2:].split()  # comm may contain spaces; fields start at 3
    return int(fields[11]) + int(fields[12])      # fields 14 and 15 of proc(5)


def jcmd_path(java):
    """The jcmd on PATH, or the one next to this java (resolving symlinks), or None."""
    found = shutil.which("jcmd")
    if found:
        return found
    candidate = os.path.join(os.path.dirname(os.path.realpath(java)), "jcmd")
    return candidate if os.access(candidate, os.X_OK) else None


def pct(values, p):
    """Nearest-rank percentile (p99 of 200 samples = the 198th smallest)."""
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)]


def snapshot_jar(src, dest_dir, wait_s=60):
    """Copies the jar (a rebuild of target/ must not disturb the run), waiting up to wait_s for a complete
    one; returns (path, sha256)."""
    deadline = time.monotonic() + wait_s
    for attempt in range(wait_s + 1):  # bounded: about one attempt per second
        if os.path.isfile(src):
            dest = os.path.join(dest_dir, "agent.jar")
            shutil.copyfile(src, dest)
            if zipfile.is_zipfile(dest):
                with open(dest, "rb") as f:
                    return dest, hashlib.sha256(f.read()).hexdigest()
        if time.monotonic() > deadline:
            break
        if attempt % 10 == 0:
            progress(f"waiting for a complete jar at {src}")
        pause(1)
    raise Failure(f"no usable jar at {src} within {wait_s} s")


def read_body(handler):
    """The request body of a BaseHTTPRequestHandler, by Content-Length or chunked (bounded)."""
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        chunks = []
        for _ in range(1_000_000):  # bounded
            size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                handler.rfile.readline()
                break
            chunks.append(handler.rfile.read(size))
            handler.rfile.readline()
        return b"".join(chunks)
    length = int(handler.headers.get("Content-Length") or 0)
    return handler.rfile.read(length) if length else b""


def terminate(proc, grace_s, who):
    """SIGTERM, then SIGKILL after grace_s; returns the exit code."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            progress(f"{who} ignored SIGTERM for {grace_s} s: SIGKILL")
            proc.kill()
            proc.wait(timeout=10)
    return proc.returncode


class AgentProcess:
    """The packaged agent jar as a subprocess: its own session (a Ctrl-C reaches the script, which stops it
    cleanly), a working directory without ./config and no BRIDGE_* variable from the caller's environment, so
    only the script's settings apply; its state in state_dir."""

    def __init__(self, name, java, jar, java_opts, workdir, env_extra, log_path, state_dir, grace_s):
        self.name = name
        self.who = f"agent {name}" if name else "the agent"
        self.cmd = [java, *java_opts, "-jar", jar]
        self.workdir = workdir
        self.log_path = log_path
        self.state_dir = state_dir
        self.grace_s = grace_s
        env = {k: v for k, v in os.environ.items() if not k.startswith("BRIDGE_")}
        env.update(env_extra)
        env["BRIDGE_STATE_DIR"] = state_dir
        self.env = env
        self.proc = None
        self.t_spawn = None
        self.exit_code = None
        self.stop_seconds = None

    def start(self):
        with open(self.log_path, "wb") as log:
            self.t_spawn = time.monotonic()
            self.proc = subprocess.Popen(self.cmd, cwd=self.workdir, env=self.env, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        register_cleanup(self.stop)
        progress(f"{self.who} started, pid {self.proc.pid}, log {self.log_path}")

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        """SIGTERM, then SIGKILL after grace_s. Idempotent; returns the exit code."""
        if self.proc is None or self.exit_code is not None:
            return self.exit_code
        t0 = time.monotonic()
        self.exit_code = terminate(self.proc, self.grace_s, self.who)
        self.stop_seconds = time.monotonic() - t0
        return self.exit_code

    def log_tail(self, lines=15):
        try:
            with open(self.log_path, "r", errors="replace") as f:
                return "".join(collections.deque(f, maxlen=lines))
        except OSError:
            return "(no log)"


# ---------------------------------------------------------------------------------------------
# The "all sinks" profile: Event Hubs, email and the approval API on top of a webhook
# ---------------------------------------------------------------------------------------------
APPROVAL_SECRET = "bench-approval-secret-0123456789abcdef"   # >= 32 characters, as the agent requires


class _Smtp(socketserver.StreamRequestHandler):
    """Just enough SMTP to accept a message (no TLS offered, so STARTTLS is not attempted)."""

    def handle(self):
        self.wfile.write(b"220 bench ESMTP\r\n")
        in_data = False
        for raw in self.rfile:
            line = raw.rstrip(b"\r\n")
            if in_data:
                if line == b".":
                    in_data = False
                    self.server.messages += 1
                    self.wfile.write(b"250 queued\r\n")
                continue
            verb = line[:4].upper()
            if verb in (b"EHLO", b"HELO"):
                self.wfile.write(b"250 bench\r\n")
            elif verb == b"DATA":
                in_data = True
                self.wfile.write(b"354 go on\r\n")
            elif verb == b"QUIT":
                self.wfile.write(b"221 bye\r\n")
                return
            else:
                self.wfile.write(b"250 ok\r\n")


def smtp_server():
    """A local SMTP responder on 127.0.0.1 (its .messages counts the mails accepted), stopped by the clean-up."""
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Smtp)
    server.daemon_threads = True
    server.messages = 0
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop():
        server.shutdown()
        server.server_close()
    register_cleanup(stop)
    return server


def closed_port():
    """A local TCP port nothing listens on (bound, then released): connections to it are refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


ALL_SINKS_LABEL = ("Event Hubs (connection string to a closed local port: SDK loaded and retrying), email (a local "
                   "SMTP responder) and the approval API (127.0.0.1, port 0) on top of the webhook")


def all_sinks_env():
    """The agent's settings for Event Hubs, email and the approval API (see ALL_SINKS_LABEL), to add to a webhook
    configuration; starts the SMTP responder. Returns (env, SMTP server)."""
    smtp = smtp_server()
    env = {
        "BRIDGE_EVENTHUBS_CONNECTION_STRING": f"Endpoint=sb://127.0.0.1:{closed_port()}/;"
                                              "SharedAccessKeyName=send;SharedAccessKey=YmVuY2gta2V5;"
                                              "EntityPath=events",
        "BRIDGE_EMAIL_HOST": "127.0.0.1",
        "BRIDGE_EMAIL_PORT": str(smtp.server_address[1]),
        "BRIDGE_EMAIL_STARTTLS": "false",
        "BRIDGE_EMAIL_FROM": "agent@example.com",
        "BRIDGE_EMAIL_TO": "ops@example.com",
        "BRIDGE_EMAIL_FILTER_TRANSITIONS": "",
        "BRIDGE_EMAIL_FILTER_EVENT_TYPES": "",
        "BRIDGE_APPROVAL_SECRET": APPROVAL_SECRET,
        "BRIDGE_APPROVAL_PORT": "0",
        "BRIDGE_APPROVAL_HOST": "127.0.0.1",
    }
    return env, smtp
