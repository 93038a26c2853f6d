"""Today's figures: the table at the top of the benchmark report (bench/harness.py), the agent and the seeds' Python
sample side by side with the machine's load over the run, in the shape BENCHMARKS.md shows first (python3
standard library only).

The harness fills a dict of figures as its runs end (all from the same run of bench/run.sh):

  rss, seed_rss       steady VmRSS: {"median", "max", "n" (MiB, 1 s samples), "from", "to" (s of uptime)}
                      plus "checks" (text) and "valid" (False: a sink or server that should be up is not)
  rss_all             the same for the agent with every sink configured
  idle, seed_idle     idle CPU: {"pct", "from", "window" (s)}
  start, seed_start   spawn -> first IMDS GET, ms, one per run
  p99, seed_p99       change -> delivery p99 in ms by poll interval (1000, 200)
  disk                by poll interval: the state device's stalls during the latency run (bench/diskwatch.py):
                      {"stalls_100ms", "device", "p99_untouched" (ms, the changes no stall overlapped), "n_untouched"}
  burst, seed_burst   1000-event document -> all delivered: {"ms"}, plus for the agent "order_ok", "order_n"

and table() renders them. A figure that is missing was not measured (its run failed) or, for the sample, not run
(--no-baseline). The goals below are those of the detailed table's verdicts (bench/harness.py)."""

import statistics
import threading
import time

RSS_WINDOW = (60, 150)         # s of uptime: "steady" memory
IDLE_FROM = 60                 # s of uptime
GOAL_RSS, STRETCH_RSS, GOAL_RSS_ALL = 80, 64, 100   # MiB
REFERENCE_P99 = {1000: 973, 200: 212}                # ms, the figures not to regress from
GOAL_BURST_MS = 1000


class LoadWatch:
    """The 1-minute load average (/proc/loadavg) every `period` s in a thread, from start() to stop()."""

    def __init__(self, period=5.0):
        self.period = period
        self.samples = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="loadavg", daemon=True)

    @staticmethod
    def read():
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])

    def _run(self):
        for _ in range(10 ** 6):  # bounded; each turn waits `period`
            self.samples.append(self.read())
            if self._stop.wait(self.period):
                return

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=5)

    def text(self, nproc):
        s = self.samples or [self.read()]
        return (f"load average (1 min) during the run: mean {statistics.fmean(s):.2f}, max {max(s):.2f}, "
                f"first {s[0]:.2f}, last {s[-1]:.2f} ({len(s)} samples every {self.period:.0f} s; {nproc} CPUs)")


def _missing(key, baseline_ran):
    """The cell for a figure that is not there."""
    if key.startswith("seed_") and not baseline_ran:
        return "not run"
    return "not measured (run failed)"


def _window(lo, hi, nominal):
    text = f"{lo:.0f}–{hi:.0f} s"
    return text if (lo, hi) == nominal else f"**{text}** (shortened from {nominal[0]}–{nominal[1]} s)"


def _rss_cell(r):
    cell = f"{r['median']:.1f} MiB (max {r['max']:.1f})"
    return cell if r.get("valid", True) else cell + " (**invalid**: " + r.get("checks", "a sink was not up") + ")"


def table(fig, baseline_ran, rss_window, idle_from, idle_window, load_text):
    """Markdown lines: figure | agent | the seeds' Python sample, the last row the machine's load."""
    na = lambda key: _missing(key, baseline_ran)
    rows = []
    a, s = fig.get("rss"), fig.get("seed_rss")
    rows.append((f"memory (RSS), median over {_window(*rss_window, RSS_WINDOW)} of uptime; one webhook sink, "
                 f"management on", _rss_cell(a) if a else na("rss"), _rss_cell(s) if s else na("seed_rss")))
    a = fig.get("rss_all")
    rows.append(("memory with Event Hubs, email and the approval API configured too",
                 _rss_cell(a) if a else na("rss_all"), "n/a (no such sinks)"))
    a, s = fig.get("idle"), fig.get("seed_idle")
    w = (a or s or {"from": idle_from, "window": idle_window})
    label = f"idle CPU at one poll a second, {w['window']:.0f} s from {w['from']:.0f} s of uptime"
    if idle_from < IDLE_FROM or idle_window < 60:
        label += f" (**shortened**: nominal 60 s from {IDLE_FROM} s)"
    rows.append((label, f"{a['pct']:.2f} % of one core" if a else na("idle"),
                 f"{s['pct']:.2f} % of one core" if s else na("seed_idle")))
    a, s = fig.get("start"), fig.get("seed_start")
    cell = lambda v: f"{statistics.median(v):.0f} ms median ({len(v)} runs: {min(v):.0f}–{max(v):.0f})"
    rows.append(("start → first IMDS request", cell(a) if a else na("start"),
                 cell(s) + ", after its sleep(1)" if s else na("seed_start")))
    a, s = fig.get("p99", {}), fig.get("seed_p99", {})
    cells = [f"{a[i]:.0f}" if i in a else "—" for i in (1000, 200)]
    disk = [fig.get("disk", {}).get(i) for i in (1000, 200)]
    stalls = ""
    if all(d and d.get("device") and d.get("p99_untouched") is not None for d in disk):
        stalls = (f"; {disk[0]['p99_untouched']:.0f} / {disk[1]['p99_untouched']:.0f} ms for the changes no disk "
                  f"stall overlapped ({disk[0]['stalls_100ms']} / {disk[1]['stalls_100ms']} stalls ≥ 100 ms)")
    rows.append((f"change → webhook received, p99 of {fig.get('n_changes', '?')} changes, polling every 1 s / 200 ms",
                 f"{cells[0]} / {cells[1]} ms{stalls}",
                 f"{s[1000]:.0f} ms (line printed) / n/a (sleeps 1 s)" if 1000 in s else na("seed_p99")))
    a, s = fig.get("burst"), fig.get("seed_burst")
    if a is None:
        cell = na("burst")
    else:
        order = ("order not checked" if a.get("order_ok") is None else
                 "per-event order kept" if a["order_ok"] else "per-event order **broken**")
        cell = f"{a['ms']:.0f} ms, {order}"
    rows.append(("one document with 1000 new events → all delivered", cell,
                 f"{s['ms']:.0f} ms (all lines printed)" if s else na("seed_burst")))
    rows.append(("machine", load_text, "the same run"))
    out = ["| figure | agent | the seeds' Python sample |", "|---|---|---|"]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return out
