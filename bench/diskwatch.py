"""Disk stalls seen from /proc/diskstats (python3 standard library only; no root, nothing written).

The agent forces its state file to disk before it hands a change's transitions to the sinks, so a change's
latency includes one synchronous write. On a virtual disk a single 4 KiB write sometimes takes 0.1–1.6 s to
complete (seen with the block:block_rq_issue/complete tracepoints on the benchmark VM); the latency runs must
tell such a stall of the device from the agent's own work. DiskWatch samples the counters of the block device
that holds a directory and records every stretch during which requests were in flight but none completed:
the device was stalled, whoever issued the requests. It is passive (it only reads /proc), so it does not
change what it measures.
"""

import os
import threading
import time

# /proc/diskstats after major, minor, name: reads completed (0), writes completed (4), in flight (8),
# discards completed (11, kernels ≥ 4.18), flushes completed (15, kernels ≥ 5.5).
_COMPLETED = (0, 4, 11, 15)
_IN_FLIGHT = 8


def _device_of(path):
    """(major, minor) of the block device holding path, or None (tmpfs, overlay without a device)."""
    dev = os.stat(path).st_dev
    major, minor = os.major(dev), os.minor(dev)
    return None if major == 0 else (major, minor)


def _read(major, minor):
    with open("/proc/diskstats") as f:
        for line in f:
            fields = line.split()
            if int(fields[0]) == major and int(fields[1]) == minor:
                values = [int(v) for v in fields[3:]]
                return sum(values[i] for i in _COMPLETED if i < len(values)), values[_IN_FLIGHT], fields[2]
    return None


class DiskWatch:
    """Samples the device of `path` every `period_s` in a daemon thread between start() and stop().

    stalls: [(t_start, t_end)] in time.monotonic(), each a stretch of at least `min_stall_s` in which the
    device had requests in flight and completed none (t_start = the last completion before it)."""

    def __init__(self, path, period_s=0.02, min_stall_s=0.05):
        self.period_s, self.min_stall_s = period_s, min_stall_s
        self.device = _device_of(path)
        self.name = None
        self.stalls = []
        self._stop = threading.Event()
        self._thread = None
        if self.device is not None:
            first = _read(*self.device)
            if first is None:       # a device mapper or a partition /proc does not list: nothing to watch
                self.device = None
            else:
                self.name = first[2]

    def start(self):
        if self.device is not None:
            self._thread = threading.Thread(target=self._run, name="diskwatch", daemon=True)
            self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        return self

    def _run(self):
        completed, _, _ = _read(*self.device)
        last_progress = time.monotonic()
        stalled_since = None
        while not self._stop.wait(self.period_s):
            sample = _read(*self.device)
            now = time.monotonic()
            if sample is None:
                return
            done, in_flight, _ = sample
            if done != completed or in_flight == 0:
                if stalled_since is not None and now - stalled_since >= self.min_stall_s:
                    self.stalls.append((stalled_since, now))
                stalled_since = None
                completed, last_progress = done, now
            elif stalled_since is None:
                stalled_since = last_progress
        if stalled_since is not None and time.monotonic() - stalled_since >= self.min_stall_s:
            self.stalls.append((stalled_since, time.monotonic()))  # still stalled when stopped

    def overlapping(self, t0, t1):
        """The longest stall overlapping [t0, t1], in ms (0 when none)."""
        return longest_overlap(self.stalls, t0, t1)

    def text(self):
        if self.device is None:
            return "n/a (no block device: tmpfs?)"
        lengths = sorted((b - a) * 1000 for a, b in self.stalls)
        if not lengths:
            return f"{self.name}: no stall ≥ {self.min_stall_s * 1000:.0f} ms"
        return (f"{self.name}: {len(lengths)} stall(s) ≥ {self.min_stall_s * 1000:.0f} ms (requests in flight, none "
                f"completed), {sum(1 for v in lengths if v >= 100)} ≥ 100 ms, longest {lengths[-1]:.0f} ms")


def longest_overlap(stalls, t0, t1):
    """The longest of the (start, end) stalls overlapping [t0, t1], in ms (0 when none)."""
    return max(((min(b, t1) - max(a, t0)) * 1000 for a, b in stalls if a < t1 and b > t0), default=0.0)
