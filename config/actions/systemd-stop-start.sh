#!/bin/sh
# Prepare ("stop") and recover ("start") command for an application run by systemd
# (config/actions.example.properties). Both are idempotent: stopping a stopped unit and starting a running one
# change nothing. The packaged unit runs the agent as the unprivileged user scheduled-events-bridge with
# NoNewPrivileges (so sudo cannot work): allow exactly these two operations with a polkit rule instead, e.g.
# /etc/polkit-1/rules.d/50-scheduled-events-bridge.rules:
#   polkit.addRule(function (action, subject) {
#     if (action.id == "org.freedesktop.systemd1.manage-units" && subject.user == "scheduled-events-bridge"
#         && action.lookup("unit") == "myapp.service"
#         && (action.lookup("verb") == "stop" || action.lookup("verb") == "start")) {
#       return polkit.Result.YES;
#     }
#   });
set -eu
UNIT="${UNIT:-myapp.service}"
SYSTEMCTL="${SYSTEMCTL:-systemctl}"
case "${1:-}" in
  stop)  echo "stopping $UNIT before $SEB_EVENT_TYPE $SEB_EVENT_ID"; $SYSTEMCTL stop "$UNIT" ;;
  start) echo "starting $UNIT after $SEB_EVENT_ID ($SEB_TRANSITION)"; $SYSTEMCTL start "$UNIT" ;;
  *) echo "usage: $0 stop|start" >&2; exit 64 ;;
esac
