#!/bin/sh
# Prepare command for a VM behind Azure Load Balancer (config/actions.example.properties).
# The agent's drain signal (bridge.drain.port) answers 503 while the event is near: the load balancer probe
# takes the VM out of rotation, and no new connections arrive. This script waits until the probe has seen it
# and the established connections to the service port have ended, or until the agent's timeout kills it.
# Idempotent: running it twice only waits twice.
set -eu
SERVICE_PORT="${SERVICE_PORT:-443}"
DRAIN_PORT="${DRAIN_PORT:-8091}"
PROBE_GRACE_SECONDS="${PROBE_GRACE_SECONDS:-15}"   # probe interval x unhealthy threshold

echo "draining for $SEB_EVENT_TYPE $SEB_EVENT_ID (not before ${SEB_NOT_BEFORE:-now})"
curl -s -o /dev/null -w "drain signal answers %{http_code}\n" "http://127.0.0.1:$DRAIN_PORT/" || true
sleep "$PROBE_GRACE_SECONDS"
while :; do
  # A failing ss fails the command rather than passing for "no connection left".
  connections=$(ss -Htn state established "( sport = :$SERVICE_PORT )")
  [ -z "$connections" ] && break
  echo "$(printf '%s\n' "$connections" | wc -l) connection(s) still open on port $SERVICE_PORT"
  sleep 5
done
echo "drained: no connection left on port $SERVICE_PORT"
