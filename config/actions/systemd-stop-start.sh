#!/bin/sh
# Prepare ("stop") and recover ("start") command for an application run by systemd
# (config/actions.example.properties). Both are idempotent: stopping a stopped unit and starting a running one
# change nothing. Under the packaged units commands run as the system user scheduled-events-bridge-action with
# NoNewPrivileges (so sudo cannot work): allow exactly these two operations on your unit with the polkit rule
# /opt/scheduled-events-bridge/examples/polkit/50-scheduled-events-bridge-myapp.rules, copied to
# /etc/polkit-1/rules.d/ with your unit's name in place of myapp.service.
set -eu
UNIT="${UNIT:-myapp.service}"
SYSTEMCTL="${SYSTEMCTL:-systemctl}"
case "${1:-}" in
  stop)  echo "stopping $UNIT before $SEB_EVENT_TYPE $SEB_EVENT_ID"; $SYSTEMCTL stop "$UNIT" ;;
  start) echo "starting $UNIT after $SEB_EVENT_ID ($SEB_TRANSITION)"; $SYSTEMCTL start "$UNIT" ;;
  *) echo "usage: $0 stop|start" >&2; exit 64 ;;
esac
