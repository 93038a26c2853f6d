#!/bin/sh
# Prepare command that asks the application to checkpoint its work (config/actions.example.properties).
# The CloudEvent of the transition arrives on stdin; here it is kept beside the checkpoint for the record.
# Idempotent: a second run for the same event finds its marker and exits 0.
set -eu
DIR="${CHECKPOINT_DIR:-/var/lib/myapp/checkpoints}"
marker="$DIR/$SEB_EVENT_ID.done"
if [ -e "$marker" ]; then
  echo "checkpoint for $SEB_EVENT_ID already taken"
  exit 0
fi
mkdir -p "$DIR"
cat > "$DIR/$SEB_EVENT_ID.event.json"
# Replace with the application's own command, e.g. a REST call or a CLI:
/usr/local/bin/myapp-checkpoint --out "$DIR/$SEB_EVENT_ID.ckpt"
touch "$marker"
echo "checkpoint for $SEB_EVENT_TYPE $SEB_EVENT_ID taken in $DIR"
