#!/usr/bin/env python3
"""The HTTP server stacks the agent could listen with, side by side: RSS and start time of a JVM that serves GET / on
one or several ports with each candidate (Jetty, Vert.x, the JDK's HttpServer, and the three together as the agent
once mixed them), compiled against the agent jar (bench/floor/HttpStackProbe.java).

    bench/http_stacks.py [--jar JAR] [--java JAVA] [--rounds 3] [--settle 40]

Each round starts every variant once, in alternating order, with the shipped `@packaging/jvm.options`; RSS is VmRSS
--settle s after the probe printed that it listens (200 requests per port done), start is JVM start → listening.
Prints a Markdown table of the medians and the load average."""
import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
from floor import compile_probes, REPO  # noqa: E402
from harness import memory_status  # noqa: E402

VARIANTS = [("jetty", 1), ("jetty", 4), ("vertx", 1), ("jdk", 1), ("mixed", 3)]


def run(args, workdir):
    jar = benchlib.snapshot_jar(args.jar, workdir)[0]
    classes = compile_probes(args.java, jar, workdir)
    opts = benchlib.agent_jvm_options(benchlib.SHIPPED_JVM_OPTIONS, "")
    rss = {v: [] for v in VARIANTS}
    start = {v: [] for v in VARIANTS}
    loads = []
    for n in range(args.rounds):
        for stack, ports in (VARIANTS if n % 2 == 0 else list(reversed(VARIANTS))):
            proc = subprocess.Popen([args.java, *opts, "-cp", f"{classes}:{jar}", "floor.HttpStackProbe", stack,
                                     str(ports)], cwd=workdir, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                    text=True, start_new_session=True)
            benchlib.register_cleanup(lambda p=proc: benchlib.terminate(p, 5, "probe"))
            line = proc.stdout.readline()
            if "listening" not in line:
                raise benchlib.Failure(f"{stack} x{ports} did not start: {line!r}")
            benchlib.pause(args.settle)
            rss[(stack, ports)].append(memory_status(proc.pid)["VmRSS"] / 1024)
            start[(stack, ports)].append(int(line.split("JVM start to listening ")[1].split(" ms")[0]))
            loads.append(float(open("/proc/loadavg").read().split()[0]))
            benchlib.terminate(proc, 5, "probe")
    print(f"### HTTP stacks: RSS {args.settle} s after listening, JVM start → listening; medians of {args.rounds} rounds "
          f"(load average mean {statistics.mean(loads):.2f}, max {max(loads):.2f}; {os.cpu_count()} CPUs)\n")
    print("| stack | ports | RSS MiB | start ms |\n|---|---|---|---|")
    for v in VARIANTS:
        print(f"| {v[0]} | {v[1]} | {statistics.median(rss[v]):.1f} | {statistics.median(start[v]):.0f} |")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jar", default=os.path.join(REPO, "target", "scheduled-events-bridge.jar"))
    ap.add_argument("--java", default="java")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--settle", type=int, default=40)
    args = ap.parse_args()
    return benchlib.run_script("http-stacks", lambda workdir: run(args, workdir), workdir_prefix="http-stacks-")


if __name__ == "__main__":
    sys.exit(main())
