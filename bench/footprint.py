#!/usr/bin/env python3
"""Footprint probe: the packaged agent's resident memory, broken down by native memory tracking (NMT), for one
configuration at a time, so that each footprint lever can be measured on its own (BENCHMARKS.md, "What each design choice bought").

    bench/footprint.py [--jar JAR] [--profile webhook|all] [--opts "EXTRA JVM FLAGS"] [--at S] [--no-nmt]

The agent runs with `@packaging/jvm.options` (the shipped flags) plus --opts, a scripted IMDS (one Reboot, then
the same document forever) and a webhook receiver; profile `all` also configures Event Hubs (an AMQP endpoint
that refuses connections: the SDK loaded and retrying), email (a local SMTP responder) and the approval API.
At --at seconds of uptime (default 120, inside the issue's 60–150 s window) it reads /proc/PID/status
(VmRSS, RssAnon, RssFile), the loaded class count and, unless --no-nmt, `jcmd VM.native_memory summary`
(NMT itself costs ~2 MiB of RSS, so the RSS line of a --no-nmt run is the one to quote).
Prints one Markdown block on stdout."""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
from harness import ScriptedImds, WebhookReceiver, WEBHOOK_SECRET, scheduled_event, new_event_id  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon", "RssFile", "RssShmem", "Threads"):
                out[key] = int(value.split()[0])
    return out


NMT_LINE = re.compile(r"^-\s+(.+?) \(reserved=(\d+)KB, committed=(\d+)KB\)", re.M)


def nmt_summary(jcmd, pid):
    out = subprocess.run([jcmd, str(pid), "VM.native_memory", "summary"], capture_output=True, text=True,
                         timeout=60).stdout
    return [(name.strip(), int(committed) // 1024) for name, _, committed in NMT_LINE.findall(out)]


def loaded_classes(jcmd, pid):
    out = subprocess.run([jcmd, str(pid), "PerfCounter.print"], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"java\.cls\.loadedClasses=(\d+)", out)
    if m:
        return int(m.group(1))
    out = subprocess.run([jcmd, str(pid), "VM.classloader_stats"], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"^Total = \d+\s+(\d+)", out, re.M)
    return int(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jar", default=os.path.join(REPO, "target", "scheduled-events-bridge.jar"))
    ap.add_argument("--profile", choices=("webhook", "all"), default="webhook")
    ap.add_argument("--argfile", default=benchlib.SHIPPED_JVM_OPTIONS,
                    help="the shipped JVM options (@argfile); 'none' for the JVM's defaults")
    ap.add_argument("--opts", default="", help="extra JVM flags after the argfile's")
    ap.add_argument("--env", action="append", default=[], help="extra KEY=VALUE for the agent's environment")
    ap.add_argument("--at", type=int, default=120, help="uptime in s at which to measure")
    ap.add_argument("--no-nmt", action="store_true")
    ap.add_argument("--java", default="java")
    ap.add_argument("--gc-at", type=int, help="ask for one full GC (jcmd GC.run) at this uptime in s")
    ap.add_argument("--in-place", action="store_true",
                    help="run the jar where it is (a class-data-sharing archive records the jar's path)")
    args = ap.parse_args()
    benchlib.install_signal_handlers()
    try:
        workdir = tempfile.mkdtemp(prefix="footprint-")
        jar = os.path.abspath(args.jar) if args.in_place else benchlib.snapshot_jar(args.jar, workdir)[0]
        imds = ScriptedImds()
        hook = WebhookReceiver()
        event = scheduled_event(new_event_id())
        imds.set_events([event])
        env = {
            "BRIDGE_IMDS_URL": f"{imds.base}/metadata/scheduledevents",
            "BRIDGE_IMDS_INSTANCE_URL": f"{imds.base}/metadata/instance/compute",
            "BRIDGE_WEBHOOK_URLS": hook.url,
            "BRIDGE_WEBHOOK_SECRET": WEBHOOK_SECRET,
            "BRIDGE_MANAGEMENT_PORT": "0",
        }
        smtp = None
        if args.profile == "all":
            sinks_env, smtp = benchlib.all_sinks_env()
            env.update(sinks_env)
        for kv in args.env:
            key, _, value = kv.partition("=")
            env[key] = value
        opts = benchlib.agent_jvm_options(args.argfile, args.opts)
        if not args.no_nmt:
            opts.append("-XX:NativeMemoryTracking=summary")
        agent = benchlib.AgentProcess("footprint", args.java, jar, opts, workdir, env,
                                      os.path.join(workdir, "agent.log"), os.path.join(workdir, "state"), 20)
        agent.start()
        with hook.cond:
            hook.cond.wait_for(lambda: hook.count >= 1 or not agent.alive(), timeout=60)
        if hook.count < 1:
            raise benchlib.Failure(f"no webhook delivery within 60 s; log:\n{agent.log_tail()}")
        jcmd = benchlib.jcmd_path(args.java)
        if args.gc_at is not None:
            benchlib.pause(max(0.0, args.gc_at - (time.monotonic() - agent.t_spawn)), agent)
            subprocess.run([jcmd, str(agent.pid), "GC.run"], capture_output=True, timeout=60)
        benchlib.pause(max(0.0, args.at - (time.monotonic() - agent.t_spawn)), agent)
        st = status(agent.pid)
        classes = loaded_classes(jcmd, agent.pid)
        nmt = [] if args.no_nmt else nmt_summary(jcmd, agent.pid)
        polls = len(imds.polls)
        agent.stop()
        print(f"### profile `{args.profile}`, argfile `{args.argfile}`, extra `{args.opts or '-'}` "
              f"{' '.join(args.env)}, at {args.at} s (load {open('/proc/loadavg').read().split()[0]})")
        print(f"- RSS {st['VmRSS'] / 1024:.1f} MiB (anon {st['RssAnon'] / 1024:.1f}, file {st['RssFile'] / 1024:.1f}), "
              f"threads {st['Threads']}, classes {classes}, polls {polls}, webhook posts {hook.count}"
              + (f", mails {smtp.messages}" if smtp else "")
              + ("" if args.no_nmt else " (NMT on)"))
        if nmt:
            print("- NMT committed MiB: " + ", ".join(f"{n} {c}" for n, c in nmt if c >= 1))
        return 0
    except benchlib.Failure as e:
        print(f"footprint: {e}", file=sys.stderr)
        return 1
    finally:
        benchlib.run_cleanups()


if __name__ == "__main__":
    sys.exit(main())
