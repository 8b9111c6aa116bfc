"""Tests that need a system package fail naming it, and ATTNLAB_SKIP_SYSTEM=1 skips every one of them."""

import pytest
from system_packages import require


def test_a_missing_package_is_named_with_its_install_command(monkeypatch):
    for name in ("ATTNLAB_SKIP_SYSTEM", "ATTNLAB_SKIP_BROWSER"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(pytest.fail.Exception, match=r"^fonts-noto-cjk not found: apt-get install -y fonts-noto-cjk, "
                                                    r"or set ATTNLAB_SKIP_BROWSER=1 \(or ATTNLAB_SKIP_SYSTEM=1"):
        require("chromium and fonts-noto-cjk", ["fonts-noto-cjk"], "apt-get install -y fonts-noto-cjk",
                "ATTNLAB_SKIP_BROWSER")
    require("chromium", [], "apt-get install -y chromium", "ATTNLAB_SKIP_BROWSER")  # all there: runs


@pytest.mark.parametrize("switch", ["ATTNLAB_SKIP_SYSTEM", "ATTNLAB_SKIP_SLURM"])
def test_one_switch_skips_them_all_and_says_what_they_need(monkeypatch, switch):
    monkeypatch.setenv(switch, "1")
    with pytest.raises(pytest.skip.Exception, match=f"^{switch}=1: this test needs slurm-wlm and munge$"):
        require("slurm-wlm and munge", [], "apt-get install slurm-wlm munge", "ATTNLAB_SKIP_SLURM")
