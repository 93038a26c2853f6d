#!/usr/bin/env bash
# Soak test of the packaged agent: 30 minutes (default) at 200 ms polling with rotating IMDS faults
# and webhook outages; heap, RSS, threads and file handles must stay flat, and every transition must
# reach both webhook receivers exactly once by CloudEvent id. For BENCHMARKS.md, not for CI.
#
#   bench/soak.sh [--jar PATH] [--quick] [--duration S] [--seed N] [--sample-every S] [--gc-every S]
#                 [--argfile PATH|none]
#
# Default jar: target/scheduled-events-bridge.jar of this repository (a copy is run, so a rebuild during
# the soak does no harm). The agent runs with the JVM options it ships with, @packaging/jvm.options
# (--argfile PATH|none), then the flags in SOAK_JAVA_OPTS, which are added and win where both set the
# same thing.
# --quick is a 3-minute smoke test with faster fault rotation. Prints a Markdown report on stdout
# (progress on stderr), writes it to bench/results/soak-latest.md and the samples to
# bench/results/soak-<timestamp>.csv. Exit status 0 only when every check passes.
set -euo pipefail

bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(dirname "$bench_dir")"
jar="$repo_dir/target/scheduled-events-bridge.jar"
args=()

while (($#)); do
  case "$1" in
    --jar) [[ $# -ge 2 ]] || { echo "--jar needs a path" >&2; exit 2; }; jar="$2"; shift 2 ;;
    --jar=*) jar="${1#--jar=}"; shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;   # the other options are soak.py's
  esac
done

mkdir -p "$bench_dir/results"
[[ -f "$bench_dir/results/.gitignore" ]] || printf '*\n!.gitignore\n' > "$bench_dir/results/.gitignore"

# exec: SIGINT/SIGTERM reach soak.py directly, which stops the agent and its servers.
exec python3 "$bench_dir/soak.py" --jar "$jar" "${args[@]}"
