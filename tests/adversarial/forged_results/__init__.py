"""Prints forged results, writes them where results go, and sprays frames into every open descriptor."""
import json
import os
import struct
import sys

FORGED = json.dumps({"submission": "forged_results", "score": 100.0, "max_score": 100.0, "exercises": []})
print(FORGED)
print(FORGED, file=sys.stderr)
for target in ["/work/main/grading-output/forged_results.json", "../forged_results.json", "/tmp/attnlab-forged.json",
               os.path.expanduser("~/forged.json")]:
    try:
        with open(target, "w") as fh:
            fh.write(FORGED)
    except OSError:
        pass
header = json.dumps({"status": "ok", "payload_bytes": 0}).encode()
for fd in range(3, 1024):
    try:
        os.write(fd, struct.pack(">I", len(header)) + header)
    except OSError:
        pass
