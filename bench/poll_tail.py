#!/usr/bin/env python3
"""Latency-tail probe: the harness's change → webhook run at one poll interval on its own (default 200 ms,
200 changes), several times, to study its slowest changes without the rest of bench/run.sh.

    bench/poll_tail.py [--jar JAR] [--runs 3] [--interval 200] [--changes 200] [--opts="EXTRA JVM FLAGS"]
                       [--strace SYSCALLS] [--state-parent DIR] [--keep]

Each run is harness.change_latency_run (fresh agent and state, `@packaging/jvm.options` plus --opts, the same
ScriptedImds and WebhookReceiver, random change phase, the previous event's Cancelled awaited before the next
change) and prints p50 / p99 / max, the load average, and for the slowest changes: change → GET that served the
new document, that GET → 'transitions -' log line → webhook, the longest stall of the state directory's disk
within change → webhook (bench/diskwatch.py: requests in flight, none completed; the state is forced to disk
before a change is dispatched), and the gap from that GET to the agent's next one (how long the poll thread was
away). --strace attaches `strace -f -tt -T -e trace=SYSCALLS` to the agent once it
polls (its output is kept in the work directory). The last line gives the medians over the runs."""
import argparse
import os
import random
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
import harness  # noqa: E402
from diskwatch import longest_overlap  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def traced_agent(imds, syscalls, out):
    """An Agent that attaches strace once it has polled twice (JVM start untraced)."""
    class Traced(harness.Agent):
        def start(self):
            super().start()

            def attach():
                if benchlib.wait_until(imds.cond, lambda: len(imds.polls) >= 2, 120, self, "two polls"):
                    tracer = subprocess.Popen(["strace", "-f", "-tt", "-T", "-e", f"trace={syscalls}", "-o", out,
                                               "-p", str(self.pid)], stderr=subprocess.DEVNULL)
                    benchlib.register_cleanup(lambda: tracer.poll() is None and tracer.terminate())
                    names = {}
                    while self.alive():  # thread names, to read the trace by (tid -> name)
                        for tid in os.listdir(f"/proc/{self.pid}/task"):
                            try:
                                with open(f"/proc/{self.pid}/task/{tid}/comm") as f:
                                    names[tid] = f.read().strip()
                            except OSError:
                                pass
                        with open(out + ".threads", "w") as f:
                            f.writelines(f"{tid} {name}\n" for tid, name in sorted(names.items()))
                        if benchlib.SHUTDOWN.wait(2.0):
                            break
            threading.Thread(target=attach, daemon=True).start()
    return Traced


def one_run(args, java_opts, jar, workdir, imds, hook, no):
    report = harness.Report()
    report.quiet_wait, report.quiet_threshold, report.start_samples = args.quiet_wait, 15.0, []
    cls = traced_agent(imds, args.strace, os.path.join(workdir, f"strace-{no}.txt")) if args.strace else harness.Agent

    def mkagent(name, extra):
        return cls(f"{name}-{no}", args.java, jar, java_opts, workdir, {**base_env(imds, hook), **extra},
                   args.state_parent)
    load0 = open("/proc/loadavg").read().split()[0]
    harness.change_latency_run(report, imds, hook, mkagent, args.interval, args.changes,
                               random.Random(args.seed + no), 3)
    load1 = open("/proc/loadavg").read().split()[0]
    raw = report.raw[f"poll{args.interval}"]
    polls = raw["polls"]
    lat = sorted((((s["t_arrival"] - s["t_change"]) * 1000, s) for s in raw["samples"]), key=lambda x: x[0])
    log = os.path.join(workdir, f"agent-poll{args.interval}-{no}.log")
    logged = harness.transition_log_times(log)
    values = [v for v, _ in lat]
    row = {r[6]: r[3] for r in report.rows}
    stalls = raw["disk_stalls"]
    print(f"run {no}: p50 {harness.pct(values, 50):.0f} / p99 {harness.pct(values, 99):.0f} / max {values[-1]:.0f} "
          f"ms over {len(values)} changes; load {load0} → {load1}; {row.get(f'lat{args.interval}_bg', '')}; disk "
          f"{row.get(f'lat{args.interval}_disk', '')}", flush=True)
    for total, s in reversed(lat[-args.show:]):
        t_poll = s["t_poll"]
        later = [t for t in polls if t > t_poll]
        t_log = logged.get((s["eventId"], "Scheduled"))
        wall = time.strftime("%H:%M:%S", time.gmtime(t_poll + harness._WALL_MINUS_MONO)) \
            + f".{int((t_poll + harness._WALL_MINUS_MONO) % 1 * 1000):03d}"
        to_log = "-" if t_log is None else f"{(t_log - t_poll) * 1000:4.0f}"
        to_hook = "-" if t_log is None else f"{(s['t_arrival'] - t_log) * 1000:3.0f}"
        print(f"  #{s['no']:3d} {total:4.0f} ms: change→GET {(t_poll - s['t_change']) * 1000:4.0f}, GET→log "
              f"{to_log}, log→webhook {to_hook}; disk stall {longest_overlap(stalls, s['t_change'], s['t_arrival']):4.0f}; next GET after "
              f"{(later[0] - t_poll) * 1000 if later else float('nan'):4.0f} ms; GET at {wall} UTC "
              f"(event {s['eventId']})", flush=True)
    untouched = report.figures["disk"][args.interval]["p99_untouched"]
    return harness.pct(values, 99), values[-1], untouched


def base_env(imds, hook):
    return {
        "BRIDGE_IMDS_URL": f"{imds.base}/metadata/scheduledevents",
        "BRIDGE_IMDS_INSTANCE_URL": f"{imds.base}/metadata/instance/compute",
        "BRIDGE_WEBHOOK_URLS": hook.url,
        "BRIDGE_WEBHOOK_SECRET": harness.WEBHOOK_SECRET,
        "BRIDGE_MANAGEMENT_PORT": "0",
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jar", default=os.path.join(REPO, "target", "scheduled-events-bridge.jar"))
    ap.add_argument("--argfile", default=benchlib.SHIPPED_JVM_OPTIONS)
    ap.add_argument("--opts", default="")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--interval", type=int, default=200)
    ap.add_argument("--changes", type=int, default=200)
    ap.add_argument("--show", type=int, default=5, help="slowest changes shown per run")
    ap.add_argument("--strace", default="", help="syscalls to trace on the agent (strace -f), e.g. "
                    "read,write,recvfrom,sendto,fsync,fdatasync,rename,openat,futex")
    ap.add_argument("--state-parent", help="the agents' state directories go here (default: the work directory "
                    "under /tmp; /dev/shm takes the disk out of the picture)")
    ap.add_argument("--quiet-wait", type=int, default=60)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--keep", action="store_true", help="keep the work directory (logs, state, strace output)")
    ap.add_argument("--java", default="java")
    args = ap.parse_args()
    java_opts = benchlib.agent_jvm_options(args.argfile, args.opts)

    def body(workdir):
        print(f"seed {args.seed}; JVM options {' '.join(java_opts)}; work directory {workdir}", flush=True)
        jar, _ = benchlib.snapshot_jar(args.jar, workdir)
        imds, hook = harness.ScriptedImds(), harness.WebhookReceiver()
        results = [one_run(args, java_opts, jar, workdir, imds, hook, no) for no in range(1, args.runs + 1)]
        clean = [u for _, _, u in results if u is not None]
        print(f"median p99 {statistics.median(p for p, _, _ in results):.0f} ms, median max "
              f"{statistics.median(m for _, m, _ in results):.0f} ms over {len(results)} runs (p99/max: "
              + ", ".join(f"{p:.0f}/{m:.0f}" for p, m, _ in results) + ")"
              + (f"; median p99 of the changes no disk stall overlapped {statistics.median(clean):.0f} ms"
                 if clean else ""))
        return 0
    return benchlib.run_script("poll-tail", body, "poll-tail-", args.keep)

if __name__ == "__main__":
    sys.exit(main())
