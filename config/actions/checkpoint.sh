#!/bin/sh
# Prepare command that asks the application to checkpoint its work (config/actions.example.properties).
# CHECKPOINT_COMMAND is the application's own tool (a CLI, or a script around a REST call); it gets the file to
# write as its last argument. The CloudEvent of the transition arrives on stdin; it is kept beside the
# checkpoint for the record. Idempotent: a second run for the same event finds its marker and exits 0.
# Under the packaged units commands run as scheduled-events-bridge-action: the default directory is that
# user's own (/var/lib/scheduled-events-bridge-action); another one needs the drop-in of the docs
# (ReadWritePaths=, and the directory writable by that user).
set -eu
: "${CHECKPOINT_COMMAND:?set CHECKPOINT_COMMAND to the application's checkpoint tool}"
DIR="${CHECKPOINT_DIR:-${STATE_DIRECTORY:-/var/lib/scheduled-events-bridge-action}/checkpoints}"
# The EventId comes from IMDS and names files here: Azure's are GUIDs; anything else (a '/', '..') is refused
# rather than written somewhere outside $DIR.
case "$SEB_EVENT_ID" in
  ''|*[!A-Za-z0-9-]*) echo "refusing EventId '$SEB_EVENT_ID': not a GUID" >&2; exit 65 ;;
esac
marker="$DIR/$SEB_EVENT_ID.done"
if [ -e "$marker" ]; then
  echo "checkpoint for $SEB_EVENT_ID already taken"
  exit 0
fi
mkdir -p "$DIR"
cat > "$DIR/$SEB_EVENT_ID.event.json"
# shellcheck disable=SC2086 # the command may carry its own arguments
$CHECKPOINT_COMMAND "$DIR/$SEB_EVENT_ID.ckpt"
touch "$marker"
echo "checkpoint for $SEB_EVENT_TYPE $SEB_EVENT_ID taken in $DIR"
