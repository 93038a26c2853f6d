"""The summary table of issue 14 at the top of the benchmark report (bench/harness.py), and the machine's load
average over the run (python3 standard library only).

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

and table() renders them with a verdict per goal row. A figure that is missing was not measured (its run failed)
or, for the sample, not run (--no-baseline)."""

import statistics
import threading
import time

RSS_WINDOW = (60, 150)         # s of uptime, as issue 14 defines "steady"
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


def _verdict(ok, extra=""):
    return ("✅" if ok else "❌") + extra


def _missing(fig, key, baseline_ran):
    """The cell for a figure that is not there."""
    if key.startswith("seed_") and not baseline_ran:
        return "not run"
    return "not measured (run failed)"


def _window(lo, hi, nominal):
    text = f"{lo:.0f}–{hi:.0f} s"
    return text if (lo, hi) == nominal else f"**{text}** (shortened from {nominal[0]}–{nominal[1]} s)"


def _rss_cell(r):
    return f"{r['median']:.1f} MiB median (max {r['max']:.1f}; {r['n']} samples" + \
        (f"; {r['checks']})" if r.get("checks") else ")")


def table(fig, baseline_ran, rss_window, idle_from, idle_window):
    """Markdown lines: the table of issue 14, agent and sample side by side, one verdict per goal row."""
    rows = []
    na = lambda key: _missing(fig, key, baseline_ran)

    def compare(agent, seed, key):
        """'≤ the sample's' verdict: (✅/❌ or a reason it cannot be decided)."""
        if agent is None:
            return "❌ not measured"
        if seed is None:
            return "— (no sample figure: " + na(key) + ")"
        return _verdict(agent <= seed)

    # RSS, one webhook sink
    label = f"RSS, steady, {_window(*rss_window, RSS_WINDOW)} uptime (median of 1 s VmRSS samples; unchanged " \
            f"document), management on, one webhook sink"
    a, s = fig.get("rss"), fig.get("seed_rss")
    verdict = "❌ not measured" if a is None else \
        _verdict(a["median"] <= GOAL_RSS and a.get("valid", True),
                 f" (stretch {'✅' if a['median'] <= STRETCH_RSS else '❌'})")
    rows.append((label, _rss_cell(a) if a else na("rss"), _rss_cell(s) if s else na("seed_rss"),
                 f"≤ {GOAL_RSS} MiB (stretch {STRETCH_RSS})", verdict))
    # RSS, all sinks
    a = fig.get("rss_all")
    rows.append((f"RSS, same window and measure, with Event Hubs (connection string to a closed local port: SDK "
                 f"loaded and retrying) + email (local SMTP responder) + approval API configured too",
                 _rss_cell(a) if a else na("rss_all"),
                 "(n/a)", f"≤ {GOAL_RSS_ALL} MiB",
                 "❌ not measured" if a is None else _verdict(a["median"] <= GOAL_RSS_ALL and a.get("valid", True))))
    # idle CPU
    a, s = fig.get("idle"), fig.get("seed_idle")
    w = (a or s or {"from": idle_from, "window": idle_window})
    label = f"idle CPU at 1 Hz, {w['window']:.0f} s window from {w['from']:.0f} s uptime"
    if idle_from < IDLE_FROM or idle_window < 60:
        label += f" (**shortened**: nominal 60 s from {IDLE_FROM} s)"
    elif (idle_from, idle_window) != (IDLE_FROM, 60):
        label += f" (nominal: 60 s from {IDLE_FROM} s)"
    rows.append((label, f"{a['pct']:.2f} % of one core" if a else na("idle"),
                 f"{s['pct']:.2f} % of one core" if s else na("seed_idle"), "≤ the sample's",
                 compare(a and a["pct"], s and s["pct"], "seed_idle")))
    # start -> first IMDS GET
    a, s = fig.get("start"), fig.get("seed_start")
    cell = lambda v: f"{statistics.median(v):.0f} ms median ({len(v)} runs: {min(v):.0f}–{max(v):.0f})"
    rows.append(("start → first IMDS GET (spawn of the process → first request of any kind)",
                 cell(a) if a else na("start"), cell(s) + " (after its sleep(1))" if s else na("seed_start"),
                 "≤ the sample's", compare(a and statistics.median(a), s and statistics.median(s), "seed_start")))
    # change -> webhook p99
    a, s = fig.get("p99", {}), fig.get("seed_p99", {})
    cells = [f"{a[i]:.0f}" if i in a else "—" for i in (1000, 200)]
    ref = REFERENCE_P99
    if 1000 in a and 200 in a:
        verdict = _verdict(a[1000] <= ref[1000] and a[200] <= ref[200])
    else:
        verdict = "❌ not measured"
    # A stalled disk holds the state write every change waits for (bench/diskwatch.py): shown beside the figure.
    disk = [fig.get("disk", {}).get(i) for i in (1000, 200)]
    stalls = ""
    if all(d and d.get("device") and d.get("p99_untouched") is not None for d in disk):
        stalls = (f" (disk stalls ≥ 100 ms during the run: {disk[0]['stalls_100ms']} / {disk[1]['stalls_100ms']}; "
                  f"p99 of the changes none overlapped: {disk[0]['p99_untouched']:.0f} / "
                  f"{disk[1]['p99_untouched']:.0f} ms)")
    rows.append((f"change → webhook p99 at 1 s / 200 ms polling ({fig.get('n_changes', '?')} changes each)",
                 f"{cells[0]} / {cells[1]} ms{stalls}",
                 (f"{s[1000]:.0f} ms (printed line) / n/a (sleeps 1 s)" if 1000 in s else na("seed_p99")),
                 f"no regression vs {ref[1000]} / {ref[200]} ms", verdict))
    # 1000-event document
    a, s = fig.get("burst"), fig.get("seed_burst")
    if a is None:
        cell, verdict = na("burst"), "❌ not measured"
    else:
        order = ("per-event order not checked" if a.get("order_ok") is None else
                 f"per-event order {'kept' if a['order_ok'] else '**broken**'} "
                 f"({a['order_n']} events × Scheduled → Started → Completed)")
        cell = f"{a['ms']:.0f} ms; {order}"
        verdict = _verdict(a["ms"] <= GOAL_BURST_MS and a.get("order_ok") is True)
    rows.append(("1000-event document → all webhooks (seed: all 1000 lines printed)", cell,
                 f"{s['ms']:.0f} ms" if s else na("seed_burst"),
                 f"≤ {GOAL_BURST_MS / 1000:.1f} s, per-event order kept", verdict))

    out = ["| figure | agent | sample (seed-001) | goal | verdict |", "|---|---|---|---|---|"]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return out
