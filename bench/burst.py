#!/usr/bin/env python3
"""Burst probe: the harness's step 6 on its own (one document with N new Scheduled Reboots → all N webhooks), for
measuring that one figure quickly, several times, without the rest of bench/run.sh.

    bench/burst.py [--jar JAR [--jar JAR2 …]] [--cds] [--max-load L] [--runs 3] [--bursts 1] [--events 1000] [--warm 20] [--opts="EXTRA JVM FLAGS"]
                   [--env BRIDGE_KEY=VALUE] [--perf record | --perf SYSCALLS] [--keep]

Each run starts a fresh agent (fresh state) with `@packaging/jvm.options` plus --opts against the harness's
ScriptedImds and WebhookReceiver (keep-alive, HMAC checked per message), waits --warm seconds of uptime, swaps in
the document at a random phase of the 1 s poll, and prints the same timeline as the harness (change → poll,
poll → first / last 'transitions -' log line, poll → first / last webhook), the load average, duplicates and bad
signatures, and the CPU each of the agent's busiest threads and the receiver used during the burst (user+system /
system, in 10 ms ticks). --bursts > 1 ends the events (one more transition each) and sends a new document of new
events, in the same agent: later bursts see a warm JIT. --perf record samples the agent with perf (run with
--opts=-XX:+PreserveFramePointer; the JIT's symbols are written to /tmp/perf-PID.map); --perf with a syscall
list traces those (perf trace). Lines "TIMING <epoch ms> <what>" that an instrumented build prints are shown as
ms after the poll. The last line is the median over all bursts. Several --jar: paired runs, each run starts
every jar once (alternating which goes first), and a median per jar. --cds: each jar gets an AppCDS archive made by
bin/create-cds-archive with the argfile (as bench/run.sh --cds and the Dockerfile do). --max-load: before each
agent start, wait (at most 180 s) until the 1-minute load average is below L."""
import argparse
import os
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
import harness  # noqa: E402
from harness import (ScriptedImds, WebhookReceiver, WEBHOOK_SECRET, scheduled_event, new_event_id,  # noqa: E402
                     transition_log_times, log_problems, _WALL_MINUS_MONO)

# Connections the webhook receiver accepted (one handler per connection): shows keep-alive at work.
CONNECTIONS = [0]
_setup = harness._WebhookHandler.setup


def _counting_setup(self):
    CONNECTIONS[0] += 1
    _setup(self)


harness._WebhookHandler.setup = _counting_setup

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tid_ticks(pid):
    """{tid: (comm, utime+stime ticks, stime ticks)} of every thread of pid."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        out[tid] = (stat[stat.index("(") + 1:stat.rindex(")")], int(fields[11]) + int(fields[12]), int(fields[12]))
    return out


def one_run(args, jar, workdir, imds, hook, no, extra_opts=()):
    imds.reset_counters()
    hook.reset_counters()
    env = {
        "BRIDGE_IMDS_URL": f"{imds.base}/metadata/scheduledevents",
        "BRIDGE_IMDS_INSTANCE_URL": f"{imds.base}/metadata/instance/compute",
        "BRIDGE_IMDS_POLL_INTERVAL": "1000",
        "BRIDGE_WEBHOOK_URLS": hook.url,
        "BRIDGE_WEBHOOK_SECRET": WEBHOOK_SECRET,
        "BRIDGE_MANAGEMENT_PORT": "0",
    }
    for kv in args.env:
        key, _, value = kv.partition("=")
        env[key] = value
    opts = [f"@{os.path.abspath(args.argfile)}"] + list(extra_opts) + shlex.split(args.opts)
    state = tempfile.mkdtemp(prefix=f"state-{no}-", dir=workdir)
    log = os.path.join(workdir, f"agent-{no}.log")
    agent = benchlib.AgentProcess(f"burst-{no}", args.java, jar, opts, workdir, env, log, state, 20)
    agent.start()
    try:
        with imds.cond:
            imds.cond.wait_for(lambda: imds.polls or not agent.alive(), timeout=120)
        if not imds.polls:
            raise benchlib.Failure(f"no poll within 120 s; log:\n{agent.log_tail()}")
        benchlib.pause(max(0.0, args.warm - (time.monotonic() - agent.t_spawn)), agent)
        totals = []
        for burst in range(1, args.bursts + 1):
            if burst > 1:
                # The previous events end (each one more transition): delivered first, so that the next burst
                # starts from quiet.
                with hook.cond:
                    expected = hook.count + len(ids)
                imds.set_events([])
                if not benchlib.wait_until(hook.cond, lambda: hook.count >= expected, 300, agent, "the ends"):
                    raise benchlib.Failure("end transitions missing")
                benchlib.pause(2.0, agent)
            ids = [new_event_id() for _ in range(args.events)]
            totals.append(one_burst(args, workdir, imds, hook, agent, log, ids, f"{no}.{burst}"))
        return totals
    finally:
        agent.stop()


def one_burst(args, workdir, imds, hook, agent, log, ids, no):
    benchlib.pause(random.uniform(0, 1.0), agent)
    load = open("/proc/loadavg").read().split()[0]
    tracer = None
    if args.asprof:
        # async-profiler loaded into the running agent just before the burst: the profile is the burst's alone.
        jcmd = benchlib.jcmd_path(args.java) or "jcmd"
        subprocess.run([jcmd, str(agent.pid), "JVMTI.agent_load", args.asprof, f'"start,{args.asprof_args}"'],
                       capture_output=True, timeout=60)
        benchlib.pause(1.0, agent)
    if args.perf:
        command = ["perf", "record", "-F", "997", "-g", "-p", str(agent.pid), "-o", os.path.join(workdir, f"perf-{no}.data")] \
            if args.perf == "record" else \
            ["perf", "trace", "-p", str(agent.pid), "-e", args.perf, "-o", os.path.join(workdir, f"trace-{no}.txt")]
        tracer = subprocess.Popen(command, stderr=subprocess.DEVNULL)
        benchlib.pause(1.0, agent)
    ticks0, own0, connections0 = tid_ticks(agent.pid), os.times(), CONNECTIONS[0]
    incarnation, t_change = imds.set_events([scheduled_event(e) for e in ids])
    keys = [(e, "Scheduled") for e in ids]
    done = benchlib.wait_until(hook.cond, lambda: all(k in hook.arrivals for k in keys), 300, agent, "burst")
    if not done:
        raise benchlib.Failure(f"only {len(hook.arrivals)}/{args.events} within 300 s")
    with hook.cond:
        arrived = sorted(hook.arrivals[k] for k in keys)
        dups, bad = hook.duplicates, hook.bad_signatures
    ticks1, own1 = tid_ticks(agent.pid), os.times()
    with open(f"/proc/{agent.pid}/status") as f:
        memory = {k: int(v.split()[0]) // 1024 for k, _, v in (line.partition(":") for line in f) if k in ("VmRSS", "VmHWM")}
    busy = sorted(((ticks1[t][1] - ticks0.get(t, (None, 0, 0))[1], ticks1[t][2] - ticks0.get(t, (None, 0, 0))[2],
                    f"{ticks1[t][0]}/{t}") for t in ticks1), reverse=True)
    cpu = ("CPU ticks (10 ms, of which system): agent " + str(sum(d for d, _, _ in busy)) + "/"
           + str(sum(k for _, k, _ in busy)) + " (" + ", ".join(f"{n} {d}/{k}" for d, k, n in busy[:5] if d > 0)
           + "), receiver "
           + f"{((own1.user + own1.system) - (own0.user + own0.system)) * 100:.0f}")
    if args.asprof:
        out = os.path.join(workdir, f"profile-{no}.collapsed")
        done = subprocess.run([jcmd, str(agent.pid), "JVMTI.agent_load", args.asprof,
                               f'"stop,file={out},collapsed,threads"'], capture_output=True, text=True, timeout=60)
        print(f"  profile {out}: {(done.stdout + done.stderr).strip()[-300:]}", flush=True)
    if tracer:
        tracer.send_signal(2)
        tracer.wait(10)
        if args.perf == "record":
            subprocess.run([benchlib.jcmd_path(args.java) or "jcmd", str(agent.pid), "Compiler.perfmap"],
                           capture_output=True, timeout=60)
    t_poll = imds.first_served.get(incarnation, t_change)
    logged = transition_log_times(log)
    log_times = sorted(logged[k] for k in keys if k in logged)
    problems, first = log_problems(log)
    total = (arrived[-1] - t_change) * 1000

    def ms(t):
        return f"{(t - t_poll) * 1000:.0f}"
    print(f"run {no}: load {load}: total {total:.0f} ms (change→poll {(t_poll - t_change) * 1000:.0f}; from the "
          f"poll: log lines {ms(log_times[0]) if log_times else '-'}…{ms(log_times[-1]) if log_times else '-'}, "
          f"webhooks {ms(arrived[0])}…{ms(arrived[-1])}, {(len(arrived) - 1) / max(1e-9, arrived[-1] - arrived[0]):.0f}"
          f"/s); dups {dups}, bad sig {bad}, WARN/ERROR {problems}; "
          f"{CONNECTIONS[0] - connections0} new connection(s); RSS / peak {memory.get('VmRSS')} / "
          f"{memory.get('VmHWM')} MiB\n  {cpu}", flush=True)
    # Lines an instrumented build prints ("TIMING <epoch ms> what"), as ms after the poll.
    with open(log, errors="replace") as f:
        marks = [line.split(None, 2) for line in f if line.startswith("TIMING ")]
    poll_wall_ms = (t_poll + _WALL_MINUS_MONO) * 1000
    shown = [f"+{int(m[1]) - poll_wall_ms:.0f} {m[2].strip()}" for m in marks if int(m[1]) >= poll_wall_ms - 50]
    if shown:
        print("  " + "; ".join(shown))
    return total, (arrived[-1] - t_poll) * 1000


def wait_for_load(below, timeout_s=180):
    if below <= 0:
        return
    deadline = time.monotonic() + timeout_s
    while float(open("/proc/loadavg").read().split()[0]) >= below and time.monotonic() < deadline:
        time.sleep(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jar", action="append", help="the agent jar (default target/); several: paired runs; JAR::FLAGS adds JVM flags to that jar's runs")
    ap.add_argument("--cds", action="store_true", help="an AppCDS archive per jar, as bench/run.sh --cds")
    ap.add_argument("--max-load", type=float, default=0, help="wait for the 1-min load average below this (0: don't)")
    ap.add_argument("--argfile", default=os.path.join(REPO, "packaging", "jvm.options"))
    ap.add_argument("--opts", default="")
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--events", type=int, default=1000)
    ap.add_argument("--bursts", type=int, default=1, help="bursts per agent (each after the last one's events ended)")
    ap.add_argument("--warm", type=float, default=20, help="uptime in s before the burst")
    ap.add_argument("--perf", default="", help="'record': perf record the agent during the burst; or syscalls to perf trace")
    ap.add_argument("--asprof", default="", help="async-profiler's libasyncProfiler.so: profile each burst "
                    "(loaded with jcmd 1 s before it; profile-<run>.collapsed in the work directory, with --keep)")
    ap.add_argument("--asprof-args", default="event=cpu,interval=1ms", help="its start options")
    ap.add_argument("--keep", action="store_true", help="keep the work directory (logs, state)")
    ap.add_argument("--java", default="java")
    args = ap.parse_args()

    jars_given = args.jar or [os.path.join(REPO, "target", "scheduled-events-bridge.jar")]

    def body(workdir):
        jars = []   # (label, jar, extra JVM options)
        for i, variant in enumerate(jars_given):
            given, _, variant_opts = variant.partition("::")
            sub = os.path.join(workdir, f"jar{i}")
            os.mkdir(sub)
            jar, sha = benchlib.snapshot_jar(given, sub)
            extra = shlex.split(variant_opts)
            if args.cds:
                archive = os.path.join(sub, "agent.jsa")
                made = subprocess.run([harness.CDS_SCRIPT, jar, archive], capture_output=True, text=True, timeout=180,
                                      env=dict(os.environ, JVM_OPTIONS=os.path.abspath(args.argfile)))
                if made.returncode != 0:
                    raise benchlib.Failure(f"bin/create-cds-archive failed: {made.stderr.strip()[-600:]}")
                extra.append(f"-XX:SharedArchiveFile={archive}")
            jars.append((f"{given} ({sha[:12]}){' ' + variant_opts if variant_opts else ''}", jar, extra))
        imds, hook = ScriptedImds(), WebhookReceiver()
        totals = {label: [] for label, _, _ in jars}
        for no in range(1, args.runs + 1):
            order = jars if no % 2 else list(reversed(jars))
            for label, jar, extra in order:
                tag = f"{no}{'abcdefgh'[jars.index((label, jar, extra))]}" if len(jars) > 1 else no
                wait_for_load(args.max_load)
                if len(jars) > 1:
                    print(f"jar {label}:", flush=True)
                totals[label] += one_run(args, jar, workdir, imds, hook, tag, extra)
        for label, runs in totals.items():
            print(f"{label + ': ' if len(jars) > 1 else ''}median total {statistics.median(t for t, _ in runs):.0f} ms, "
                  f"poll→last webhook {statistics.median(p for _, p in runs):.0f} ms over {len(runs)} bursts: "
                  + ", ".join(f"{t:.0f}/{p:.0f}" for t, p in runs))
        if args.keep:
            print(f"work directory {workdir}")
        return 0
    return benchlib.run_script("burst", body, "burst-", args.keep)

if __name__ == "__main__":
    sys.exit(main())
