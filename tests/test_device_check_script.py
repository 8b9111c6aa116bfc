"""scripts/device-check runs only where a GPU is lent, so nothing else noticed when it stopped working (an
InProcessImpl signature change broke it before its first GPU run). Its CPU smoke mode runs the same code:
the references in process and grade.py on the example class, with the reference held to full marks."""

import subprocess
import sys

import pytest

from attnlab.core import paths

pytestmark = pytest.mark.e2e


def test_device_check_runs_on_the_cpu(tmp_path):
    done = subprocess.run([sys.executable, str(paths.ROOT / "scripts" / "device-check"), "--device", "cpu",
                           "--assignments", "attention", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("device-check on cpu (smoke test)")
    assert sum(line.startswith("reference · attention · ") and "passed" in line for line in lines) == 12
    [graded] = [line for line in lines if line.startswith("grade.py --device cpu · attention")]
    assert "reference 100.00/100.00" in graded and "FAILED" not in graded
