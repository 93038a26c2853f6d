#!/usr/bin/env python3
"""The floor of this stack: how much memory and idle CPU a JVM needs to poll at all, side by side with the agent and
the seeds' Python sample, in one run on one scripted IMDS (what the agent's RSS and idle CPU can be measured against).

    bench/floor.py [--jar JAR] [--java JAVA] [--until 150]

Rungs, all started at once with the shipped `@packaging/jvm.options` (no AppCDS archive: the JDK's own CDS), each
polling the same unchanging document once a second (the sample and the agent: as in bench/run.sh):
  hello        a JVM that prints one line and sleeps (bench/floor/Hello.java)
  jdk-poll     the sample's loop in plain Java: JDK HttpClient GET, Jackson parse, sleep 1 s (Poll.java)
  camel        a bare Camel Main, one YAML route scheduler → camel-http → log, no JMX (CamelProbe.java)
  camel-jmx    the same with Camel's JMX and camel.metrics (Prometheus), as the agent's management needs
  agent        the agent: one webhook sink, management on (bench/footprint.py's webhook profile)
  sample       the seeds' Python sample (bench/baseline/seed001_sample.py)
The probes compile against the agent jar (Camel and Jackson come from it). Figures: RSS = median of 1 s VmRSS samples
from 60 s to --until s of uptime (bench/run.sh's window and measure); idle CPU = user+system ticks from 60 to 120 s
of uptime, in % of one core. Prints a Markdown table and the load average."""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
from harness import (ScriptedImds, WebhookReceiver, WEBHOOK_SECRET, SeedSample, scheduled_event, new_event_id,  # noqa: E402
                     memory_status)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROBES = os.path.join(REPO, "bench", "floor")
ROUTE = """- route:
    id: floor-poll
    from:
      uri: scheduler:floor-poll
      parameters:
        delay: 1000
      steps:
        - setHeader:
            name: Metadata
            constant: "true"
        - to: "{url}"
        - log: "got ${{header.CamelHttpResponseCode}}"
"""
JMX_AND_METRICS = """camel.main.jmx-enabled=true
camel.metrics.enabled=true
camel.metrics.binders=jvm-memory,jvm-gc,jvm-thread,processor,file-descriptor,uptime
"""


def compile_probes(java, jar, workdir):
    javac = os.path.join(os.path.dirname(os.path.realpath(shutil.which(java) or java)), "javac")
    classes = os.path.join(workdir, "classes")
    sources = [os.path.join(PROBES, f) for f in sorted(os.listdir(PROBES)) if f.endswith(".java")]
    subprocess.run([javac, "-d", classes, "-cp", jar, *sources], check=True)
    return classes


def camel_properties(workdir, name, url, extra=""):
    route = os.path.join(workdir, f"{name}.yaml")
    with open(route, "w") as f:
        f.write(ROUTE.format(url=url))
    props = os.path.join(workdir, f"{name}.properties")
    with open(props, "w") as f:
        f.write(f"camel.main.name={name}\ncamel.main.jmx-enabled=false\n"
                f"camel.main.routes-include-pattern=file:{route}\n{extra}")
    return props


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jar", default=os.path.join(REPO, "target", "scheduled-events-bridge.jar"))
    ap.add_argument("--java", default="java")
    ap.add_argument("--until", type=int, default=150, help="end of the RSS window, s of uptime (>= 120)")
    args = ap.parse_args()
    return benchlib.run_script("floor", lambda workdir: run(args, workdir), workdir_prefix="floor-")


def run(args, workdir):
    jar = benchlib.snapshot_jar(args.jar, workdir)[0]
    classes = compile_probes(args.java, jar, workdir)
    imds = ScriptedImds()
    imds.set_events([scheduled_event(new_event_id())])
    url = f"{imds.base}/metadata/scheduledevents"
    probe_url = f"{url}?api-version=2020-07-01"   # IMDS refuses a request without it (and without Metadata: true)
    hook = WebhookReceiver()
    opts = benchlib.agent_jvm_options(benchlib.SHIPPED_JVM_OPTIONS, "")
    cp = f"{classes}:{jar}"
    plain = {
        "hello": ["-cp", classes, "floor.Hello"],
        "jdk-poll": ["-cp", cp, "floor.Poll", probe_url],
        "camel": ["-cp", cp, "floor.CamelProbe", camel_properties(workdir, "camel", probe_url)],
        "camel-jmx": ["-cp", cp, "floor.CamelProbe", camel_properties(workdir, "camel-jmx", probe_url, JMX_AND_METRICS)],
    }
    processes = {}
    for name, rest in plain.items():
        log = open(os.path.join(workdir, f"{name}.log"), "wb")
        proc = subprocess.Popen([args.java, *opts, *rest], cwd=workdir, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        benchlib.register_cleanup(lambda p=proc: benchlib.terminate(p, 5, "probe"))
        processes[name] = (proc.pid, time.monotonic())
    agent = benchlib.AgentProcess("floor", args.java, jar, opts, workdir, {
        "BRIDGE_IMDS_URL": url,
        "BRIDGE_IMDS_INSTANCE_URL": f"{imds.base}/metadata/instance/compute",
        "BRIDGE_WEBHOOK_URLS": hook.url,
        "BRIDGE_WEBHOOK_SECRET": WEBHOOK_SECRET,
        "BRIDGE_MANAGEMENT_PORT": "0",
    }, os.path.join(workdir, "agent.log"), os.path.join(workdir, "state"), 20)
    agent.start()
    processes["agent"] = (agent.pid, agent.t_spawn)
    sample = SeedSample("floor", sys.executable, workdir, url)
    sample.start()
    processes["sample"] = (sample.pid, sample.t_spawn)

    rss = {name: [] for name in processes}
    ticks = {}
    loads = []
    t0 = min(t for _, t in processes.values())
    while time.monotonic() - t0 < args.until + 1:
        now = time.monotonic()
        for name, (pid, spawned) in processes.items():
            uptime = now - spawned
            if 60 <= uptime <= args.until:
                rss[name].append(memory_status(pid)["VmRSS"])
            for mark in (60, 120):
                if uptime >= mark and (name, mark) not in ticks:
                    ticks[(name, mark)] = benchlib.cpu_ticks(pid)
        loads.append(float(open("/proc/loadavg").read().split()[0]))
        time.sleep(1 - (time.monotonic() - now) % 1)
    if hook.count < 1:
        raise benchlib.Failure(f"the agent delivered nothing; log tail:\n{agent.log_tail()}")
    hz = os.sysconf("SC_CLK_TCK")
    print(f"### The floor: RSS median {60}–{args.until} s, idle CPU 60–120 s of uptime, one scripted IMDS "
          f"(load average mean {statistics.mean(loads):.2f}, max {max(loads):.2f}; {os.cpu_count()} CPUs)\n")
    print("| rung | RSS MiB | idle CPU, % of one core |\n|---|---|---|")
    for name in processes:
        cpu = (ticks[(name, 120)] - ticks[(name, 60)]) / hz / 60 * 100
        print(f"| {name} | {statistics.median(rss[name]) / 1024:.1f} | {cpu:.2f} |")
    print(f"\nIMDS GETs: {len(imds.polls)} ({imds.rejected} refused); webhook deliveries to the agent's receiver: "
          f"{hook.count}")
    if imds.rejected:
        raise benchlib.Failure(f"{imds.rejected} requests refused by the scripted IMDS: a probe polls wrongly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
