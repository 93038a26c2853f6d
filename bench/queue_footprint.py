#!/usr/bin/env python3
"""Approvals from a queue, what they cost: the packaged agent's RSS with bridge.approval.queue.url set, next to the
same agent without it, both running at the same time (one run, same machine load).

    bench/queue_footprint.py [--jar JAR] [--at S] [--poll-interval MS]

Starts Azurite's queue service (azurite-queue, bin/install-prerequisites) on loopback, creates the queue with the
development account's key, then runs bench/footprint.py twice in parallel (webhook profile, the approval secret set
in both, --no-nmt); the queue agent receives from it every --poll-interval ms (default: the shipped 5000) with the
connection string. Prints both footprint blocks and the difference."""
import argparse
import base64
import hashlib
import hmac
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from email.utils import formatdate

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ACCOUNT = "devstoreaccount1"
KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="  # Azurite's README
SECRET = "bench-approval-secret-0123456789abcdef0123"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def create_queue(port, name):
    url = f"http://127.0.0.1:{port}/{ACCOUNT}/{name}"
    date = formatdate(usegmt=True)
    text = f"PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:{date}\nx-ms-version:2021-12-02\n/{ACCOUNT}/{ACCOUNT}/{name}"
    sig = base64.b64encode(hmac.new(base64.b64decode(KEY), text.encode(), hashlib.sha256).digest()).decode()
    req = urllib.request.Request(url, method="PUT", headers={"x-ms-date": date, "x-ms-version": "2021-12-02",
                                                             "Authorization": f"SharedKey {ACCOUNT}:{sig}"})
    return urllib.request.urlopen(req, timeout=30).status


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jar", default=os.path.join(REPO, "target", "scheduled-events-bridge.jar"))
    ap.add_argument("--at", type=int, default=120)
    ap.add_argument("--poll-interval", default="5000")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="queue-footprint-")
    port = free_port()
    azurite = subprocess.Popen(["azurite-queue", "--queueHost", "127.0.0.1", "--queuePort", str(port), "--location",
                                work, "--skipApiVersionCheck", "--disableProductStyleUrl", "--silent"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        create_queue(port, "approve-vm")
        common = ["python3", os.path.join(REPO, "bench", "footprint.py"), "--jar", args.jar, "--at", str(args.at),
                  "--no-nmt", "--env", f"BRIDGE_APPROVAL_SECRET={SECRET}", "--env", "BRIDGE_APPROVAL_PORT=0",
                  "--env", "BRIDGE_APPROVAL_HOST=127.0.0.1"]
        queue = ["--env", f"BRIDGE_APPROVAL_QUEUE_URL=http://127.0.0.1:{port}/{ACCOUNT}/approve-vm",
                 "--env", "BRIDGE_APPROVAL_QUEUE_CREDENTIAL=connection-string",
                 "--env", f"BRIDGE_APPROVAL_QUEUE_CONNECTION_STRING=AccountName={ACCOUNT};AccountKey={KEY}",
                 "--env", f"BRIDGE_APPROVAL_QUEUE_POLL_INTERVAL={args.poll_interval}"]
        without = subprocess.Popen(common, stdout=subprocess.PIPE, text=True)
        with_queue = subprocess.Popen(common + queue, stdout=subprocess.PIPE, text=True)
        out_without, out_with = without.communicate()[0], with_queue.communicate()[0]
        print("#### without the queue\n" + out_without.replace(KEY, "***") + "#### with the queue\n" + out_with.replace(KEY, "***"))
        rss = [float(re.search(r"RSS ([0-9.]+) MiB", o).group(1)) for o in (out_without, out_with)]
        print(f"- with the queue: {rss[1] - rss[0]:+.1f} MiB RSS")
        return 0 if without.returncode == 0 and with_queue.returncode == 0 else 1
    finally:
        azurite.terminate()
        azurite.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
