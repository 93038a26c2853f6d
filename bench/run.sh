#!/usr/bin/env bash
# Benchmark of the packaged agent: latency, idle CPU, memory, burst throughput.
#
#   bench/run.sh [--jar PATH] [--quick] [--changes N] [--idle-window S] [--idle-after S] [--seed N]
#                [--quiet-wait S] [--quiet-threshold PCT] [--state-parent DIR]   (see harness.py --help)
#
# Default jar: target/scheduled-events-bridge.jar of this repository (a copy is benchmarked, so a
# rebuild during the run does no harm). JVM flags for the agent come from BENCH_JAVA_OPTS (default:
# none, i.e. the JVM's own defaults), e.g.
#   BENCH_JAVA_OPTS="-XX:+UseSerialGC -Xmx64m" bench/run.sh --quick
# Prints a Markdown report on stdout (progress on stderr) and writes it to bench/results/latest.md.
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
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;   # --quick and the other options are the harness's
  esac
done

mkdir -p "$bench_dir/results"
[[ -f "$bench_dir/results/.gitignore" ]] || printf '*\n!.gitignore\n' > "$bench_dir/results/.gitignore"

# exec: SIGINT/SIGTERM reach the harness directly, which stops the agent and its servers.
exec python3 "$bench_dir/harness.py" --jar "$jar" --out "$bench_dir/results/latest.md" "${args[@]}"
