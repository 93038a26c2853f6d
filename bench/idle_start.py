#!/usr/bin/env python3
"""Idle CPU and start → first IMDS GET, for one or more agent jars and the seeds' Python sample, in
alternating rounds: a quicker way than a whole bench/run.sh to compare a lever before and after.

    bench/idle_start.py --jar BEFORE.jar --jar AFTER.jar [--rounds 3] [--cds] [--opts="EXTRA FLAGS" ...]
    (--opts once for every jar or once per --jar, in their order; write --opts="-X…" with '=')

Each round starts every variant (the jars in the order given, then the sample; the order rotates from round to
round) one after another, each against its own scripted IMDS (one Reboot, then the same document forever) and,
for the agents, a webhook receiver, with the shipped JVM options (@packaging/jvm.options) plus --opts, and with
--cds an AppCDS archive per jar made by bin/create-cds-archive (as bench/run.sh --cds does). The next variant
starts --gap seconds after the previous one's first GET, so a start meets a machine on which the others idle.
Then all of them idle side by side; each one's idle CPU is taken over [--idle-from, --idle-from + --idle-window]
s of its own uptime (bench/harness.py's measure: utime + stime of the process over the window), with the CPU each
of its threads used (schedstat, ns), which a busy shared machine disturbs less than the wall-clock figures; the
same per thread when the first GET arrives. Prints per-round lines and a Markdown table of medians, with the
load average."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
import harness  # noqa: E402
from harness import (Agent, SeedSample, ScriptedImds, WebhookReceiver, WEBHOOK_SECRET, CDS_SCRIPT,  # noqa: E402
                     start_with_one_event, seed_preflight, Background, CLK_TCK)

benchlib.set_label("idle_start")


class Variant:
    def __init__(self, label, make):
        self.label = label
        self.make = make          # () -> (process, imds)
        self.starts, self.idles, self.threads, self.rss = [], [], [], []
        self.start_cpu = []       # (process CPU ms, busiest thread's CPU ms) when the first GET arrived


def thread_cpu_ns(pid):
    """{thread id: (name, CPU ns)} from /proc/PID/task/*/schedstat: nanoseconds, where the 1/100 s ticks of
    harness.thread_ticks leave a poll's few milliseconds to chance. Names as the kernel keeps them (15 chars)."""
    out = {}
    task_dir = f"/proc/{pid}/task"
    for tid in os.listdir(task_dir):
        try:
            with open(f"{task_dir}/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
            with open(f"{task_dir}/{tid}/comm") as f:
                name = f.read().strip()
        except OSError:  # the thread ended meanwhile
            continue
        out[tid] = (name, ns)
    return out


def per_thread_ms(before, after):
    """'name ms, …' of the CPU each thread used between two thread_cpu_ns() readings, most first."""
    used = {}
    for tid, (name, ns) in after.items():
        used[name] = used.get(name, 0) + ns - before.get(tid, (name, 0))[1]
    return ", ".join(f"{n} {ns / 1e6:.0f}" for n, ns in sorted(used.items(), key=lambda x: -x[1]) if ns >= 5e5)


def wait_first_get(imds, proc):
    if not benchlib.wait_until(imds.cond, lambda: imds.first_get is not None, harness.FIRST_POLL_TIMEOUT_S, proc,
                              "the first GET"):
        raise benchlib.Failure(f"{proc.name}: no IMDS request within {harness.FIRST_POLL_TIMEOUT_S} s")
    return (imds.first_get - proc.t_spawn) * 1000


def one_round(variants, order, args):
    running = []   # (variant, proc, imds)
    try:
        for v in order:
            proc, imds = v.make()
            start_with_one_event(imds, proc, proc.name)
            ms = wait_first_get(imds, proc)
            threads = thread_cpu_ns(proc.pid)
            cpu = (sum(ns for _, ns in threads.values()) / 1e6, max(ns for _, ns in threads.values()) / 1e6)
            v.starts.append(ms)
            v.start_cpu.append(cpu)
            benchlib.progress(f"{v.label}: first GET after {ms:.0f} ms, CPU by then {cpu[0]:.0f} ms (busiest thread "
                              f"{cpu[1]:.0f} ms) (load {os.getloadavg()[0]:.2f}) [ms: {per_thread_ms({}, threads)}]")
            running.append((v, proc, imds))
            benchlib.pause(args.gap)
        # Idle windows, each at its own uptime; sampled in uptime order.
        pending = sorted(running, key=lambda r: r[1].t_spawn)
        marks = {}
        events = []
        for v, proc, _ in pending:
            events.append((proc.t_spawn + args.idle_from, "start", v, proc))
            events.append((proc.t_spawn + args.idle_from + args.idle_window, "end", v, proc))
        events.sort(key=lambda e: e[0])
        for when, kind, v, proc in events:
            benchlib.pause(when - time.monotonic(), None)
            if not proc.alive():
                raise benchlib.Failure(f"{proc.name} exited")
            if kind == "start":
                marks[v.label] = (time.monotonic(), benchlib.cpu_ticks(proc.pid), thread_cpu_ns(proc.pid),
                                  Background(proc.pid))
            else:
                t0, ticks0, threads0, background = marks[v.label]
                t1, ticks1, threads1 = time.monotonic(), benchlib.cpu_ticks(proc.pid), thread_cpu_ns(proc.pid)
                pct = (ticks1 - ticks0) / CLK_TCK / (t1 - t0) * 100
                v.idles.append(pct)
                top = per_thread_ms(threads0, threads1)
                v.threads.append(top)
                other, _ = background.result()
                rss = harness.memory_status(proc.pid)["VmRSS"] / 1024
                v.rss.append(rss)
                benchlib.progress(f"{v.label}: idle {pct:.2f} % ({ticks1 - ticks0} ticks in {t1 - t0:.0f} s; RSS {rss:.1f} MiB; "
                                  f"others {other:.0f} % of a core; load {os.getloadavg()[0]:.2f}) [ms: {top}]")
    finally:
        for _, proc, _ in running:
            proc.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jar", action="append", required=True, help="an agent jar (repeat to compare)")
    ap.add_argument("--label", action="append", help="a label per --jar (default: the jar's file name)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cds", action="store_true", help="an AppCDS archive per jar (bin/create-cds-archive)")
    ap.add_argument("--opts", action="append", help="extra JVM flags after the argfile's: once for all jars, or "
                    "once per --jar")
    ap.add_argument("--argfile", default=benchlib.SHIPPED_JVM_OPTIONS)
    ap.add_argument("--idle-from", type=float, default=60.0)
    ap.add_argument("--idle-window", type=float, default=60.0)
    ap.add_argument("--gap", type=float, default=8.0, help="s between a first GET and the next start")
    ap.add_argument("--no-baseline", action="store_true")
    args = ap.parse_args()
    benchlib.install_signal_handlers()
    labels = args.label or [os.path.basename(os.path.dirname(os.path.abspath(j))) + "/" + os.path.basename(j)
                            for j in args.jar]
    extra = args.opts or [""]
    extra = extra * len(args.jar) if len(extra) == 1 else extra
    if len(labels) != len(args.jar) or len(extra) != len(args.jar):
        ap.error("one --label per --jar; --opts once or once per --jar")
    workdir = tempfile.mkdtemp(prefix="idle-start-")
    benchlib.progress(f"scratch dir {workdir}")
    load = []
    try:
        variants = []
        for i, (path, label, flags) in enumerate(zip(args.jar, labels, extra)):
            jar_dir = os.path.join(workdir, f"jar{i}")
            os.mkdir(jar_dir)
            jar, _ = benchlib.snapshot_jar(os.path.abspath(path), jar_dir)
            opts = benchlib.agent_jvm_options(args.argfile, flags)
            if args.cds:
                archive = os.path.join(jar_dir, "agent.jsa")
                benchlib.progress(f"AppCDS archive for {label}")
                made = subprocess.run([CDS_SCRIPT, jar, archive], capture_output=True, text=True, timeout=180,
                                      env=dict(os.environ, JVM_OPTIONS=os.path.abspath(args.argfile)))
                if made.returncode != 0:
                    raise benchlib.Failure(f"create-cds-archive: {made.stderr[-600:]}")
                opts.append(f"-XX:SharedArchiveFile={archive}")

            def make(jar=jar, opts=opts, i=i):
                imds, hook = ScriptedImds(), WebhookReceiver()
                env = {"BRIDGE_IMDS_URL": f"{imds.base}/metadata/scheduledevents",
                       "BRIDGE_IMDS_INSTANCE_URL": f"{imds.base}/metadata/instance/compute",
                       "BRIDGE_WEBHOOK_URLS": hook.url, "BRIDGE_WEBHOOK_SECRET": WEBHOOK_SECRET,
                       "BRIDGE_MANAGEMENT_PORT": "0"}
                return Agent(f"v{i}", "java", jar, opts, workdir, env), imds
            variants.append(Variant(label + (f" ({flags})" if flags else ""), make))
        if not args.no_baseline:
            seed_preflight(sys.executable)

            def make_seed():
                imds = ScriptedImds()
                return SeedSample("idle", sys.executable, workdir, f"{imds.base}/metadata/scheduledevents"), imds
            variants.append(Variant("seed-001 sample", make_seed))
        for r in range(args.rounds):
            order = variants[r % len(variants):] + variants[:r % len(variants)]
            benchlib.progress(f"round {r + 1}/{args.rounds}: " + ", ".join(v.label for v in order))
            one_round(variants, order, args)
            load.append(os.getloadavg()[0])
        print(f"\n### idle CPU ({args.idle_window:.0f} s from {args.idle_from:.0f} s uptime) and start → first GET, "
              f"{args.rounds} rounds{', AppCDS' if args.cds else ''}"
              f"(load average after each round: {', '.join(f'{x:.2f}' for x in load)})\n")
        print("| variant | idle CPU median (per round) | first GET median (per round) | CPU by the first GET, "
              "process / busiest thread, medians | VmRSS at the window's end, median |\n|---|---|---|---|---|")
        for v in variants:
            print(f"| {v.label} | {statistics.median(v.idles):.2f} % ({', '.join(f'{x:.2f}' for x in v.idles)}) | "
                  f"{statistics.median(v.starts):.0f} ms ({', '.join(f'{x:.0f}' for x in v.starts)}) | "
                  f"{statistics.median(c for c, _ in v.start_cpu):.0f} / "
                  f"{statistics.median(b for _, b in v.start_cpu):.0f} ms | {statistics.median(v.rss):.1f} MiB |")
        for v in variants:
            for i, t in enumerate(v.threads):
                print(f"- {v.label} round {i + 1}, CPU ms by thread: {t}")
        return 0
    except benchlib.Failure as e:
        print(f"idle_start: {e}", file=sys.stderr)
        return 1
    finally:
        benchlib.run_cleanups()


if __name__ == "__main__":
    sys.exit(main())
