#!/bin/sh
# Prepare ("stop") and recover ("start") command for an application run by systemd
# (config/actions.example.properties). Both are idempotent: stopping a stopped unit and starting a running one
# change nothing. The agent runs as its own user: allow exactly these commands, e.g. with a polkit rule or
#   scheduled-events-bridge ALL=(root) NOPASSWD: /usr/bin/systemctl stop myapp.service, /usr/bin/systemctl start myapp.service
# in /etc/sudoers.d/ and SYSTEMCTL="sudo -n systemctl".
set -eu
UNIT="${UNIT:-myapp.service}"
SYSTEMCTL="${SYSTEMCTL:-sudo -n systemctl}"
case "${1:-}" in
  stop)  echo "stopping $UNIT before $SEB_EVENT_TYPE $SEB_EVENT_ID"; $SYSTEMCTL stop "$UNIT" ;;
  start) echo "starting $UNIT after $SEB_EVENT_ID ($SEB_TRANSITION)"; $SYSTEMCTL start "$UNIT" ;;
  *) echo "usage: $0 stop|start" >&2; exit 64 ;;
esac
