#!/usr/bin/env python3
"""The agent's disk writes per change, without the agent: is a slow change the disk's doing?

    bench/fsync_probe.py [--dir DIR] [--seconds 60] [--period 0.3] [--warm-up]

Every --period seconds it does what the agent does for one change (TransitionJournal, Dispatcher, Spool): the
state file written and forced, then renamed (the write a change waits for before it is dispatched); two spool
files written and renamed, each forced, then their directory; the state written and forced again; the two
spool files deleted (delivered). It prints the time of the first forced write (the one on the change's path)
and of the others, and the disk's stalls (bench/diskwatch.py). --warm-up forces a scratch file just before the
state: on the benchmark VM the first forced write after an idle period is the one that stalls (0.1–0.9 s),
whichever file it is, and the writes right after it complete in milliseconds."""
import argparse
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from diskwatch import DiskWatch  # noqa: E402


def forced(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        t0 = time.monotonic()
        os.fsync(fd)
        return time.monotonic() - t0
    finally:
        os.close(fd)


def replace(path, data, force=True):
    """AtomicFiles.write: a temporary file, forced (or not), renamed over the target; returns the force's time."""
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
        t0 = time.monotonic()
        if force:
            os.fsync(fd)
        took = time.monotonic() - t0
    finally:
        os.close(fd)
    os.rename(tmp, path)
    return took


def summary(name, seconds):
    ms = sorted(s * 1000 for s in seconds)
    return (f"{name}: {len(ms)}, p50 {ms[len(ms) // 2]:.1f} / p99 {ms[int(len(ms) * 0.99)]:.1f} / max {ms[-1]:.0f} "
            f"ms, {sum(1 for v in ms if v > 100)} over 100 ms")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", default="/tmp", help="where the scratch state directory goes (default /tmp)")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--period", type=float, default=0.3, help="idle time between two changes, s")
    ap.add_argument("--warm-up", action="store_true", help="force a scratch file just before the state")
    args = ap.parse_args()
    state = tempfile.mkdtemp(prefix="fsync-probe-", dir=args.dir)
    spool = os.path.join(state, "spool")
    os.mkdir(spool)
    first, warm, others, seq = [], [], [], 0
    watch = DiskWatch(state).start()
    try:
        end = time.monotonic() + min(args.seconds, 3600)
        while time.monotonic() < end:
            if args.warm_up:
                warm.append(replace(os.path.join(state, "warm-up"), b"w" * 100))
            first.append(replace(os.path.join(state, "state.json"), b"s" * 2400))
            files = [os.path.join(spool, f"{seq + i:019d}.json") for i in (1, 2)]
            seq += 2
            for f in files:
                replace(f, b"e" * 956, force=False)
            others += [forced(f) for f in files] + [forced(spool)]
            others.append(replace(os.path.join(state, "state.json"), b"s" * 480))
            for f in files:
                os.unlink(f)
            time.sleep(args.period)
    finally:
        watch.stop()
        shutil.rmtree(state, ignore_errors=True)
    print(f"{summary('state write on the change path', first)}; {summary('the other forced writes', others)}"
          + (f"; {summary('warm-up writes', warm)}" if warm else "") + f"; disk {watch.text()}; load "
          + open("/proc/loadavg").read().split()[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
