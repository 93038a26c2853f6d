#!/usr/bin/env bash
# Benchmark of the packaged agent: latency, approvals, idle CPU, memory, burst throughput, each side by
# side with the baseline (the seeds' Python sample, bench/baseline/seed001_sample.py, which needs the
# Python 'requests' module: Debian/Ubuntu package python3-requests).
#
#   bench/run.sh [--jar PATH] [--quick] [--changes N] [--idle-window S] [--idle-after S] [--seed N]
#                [--quiet-wait S] [--quiet-threshold PCT] [--state-parent DIR] [--approvals N]
#                [--no-baseline] [--argfile PATH|none] [--cds]            (see harness.py --help)
#
# Default jar: target/scheduled-events-bridge.jar of this repository (a copy is benchmarked, so a
# rebuild during the run does no harm). The agent runs with the JVM options it ships with,
# @packaging/jvm.options (--argfile PATH for another file, --argfile none for the JVM's defaults), then
# the flags in BENCH_JAVA_OPTS, which are added and win where both set the same thing (java takes the
# last); the report lists both. --cds adds an AppCDS archive trained with the argfile, as shipped.
#   BENCH_JAVA_OPTS="-Xlog:gc" bench/run.sh --quick
# Prints a Markdown report on stdout (progress on stderr), today's figures first in the table BENCHMARKS.md shows
# (agent and the seeds' Python sample side by side, with the machine's load), and writes it to bench/results/latest.md.
# Exit status is non-zero when a measurement could not be completed.
set -euo pipefail

bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(dirname "$bench_dir")"
jar="$repo_dir/target/scheduled-events-bridge.jar"
args=()

while (($#)); do
  case "$1" in
    --jar) [[ $# -ge 2 ]] || { echo "--jar needs a path" >&2; exit 2; }; jar="$2"; shift 2 ;;
    --jar=*) jar="${1#--jar=}"; shift ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;   # --quick and the other options are the harness's
  esac
done

command -v python3 >/dev/null || { echo "bench/run.sh: python3 not found on PATH" >&2; exit 2; }
if ! python3 -c 'import requests' 2>/dev/null; then
  echo "bench/run.sh: the baseline (bench/baseline/seed001_sample.py, the seeds' Python sample) needs the" >&2
  echo "Python 'requests' module for $(command -v python3): apt-get install python3-requests (Debian/Ubuntu)," >&2
  echo "or pip install requests; or pass --no-baseline to benchmark the agent alone." >&2
  [[ " ${args[*]-} " == *" --no-baseline "* ]] || exit 2
fi

mkdir -p "$bench_dir/results"
[[ -f "$bench_dir/results/.gitignore" ]] || printf '*\n!.gitignore\n' > "$bench_dir/results/.gitignore"

# exec: SIGINT/SIGTERM reach the harness directly, which stops the agent and its servers.
exec python3 "$bench_dir/harness.py" --jar "$jar" --out "$bench_dir/results/latest.md" "${args[@]}"
