"""The runner receives every tensor on the CPU and puts each where the judge made it. A vjp's cotangent
once stayed on the CPU while the output was on CUDA, so every gradient law of grade.py --device cuda failed
("Expected all tensors to be on the same device") although the same checks passed in process. The meta
device stands in for CUDA here: moving to it is real, and needs no GPU."""

import torch

from attnlab.grade.runner.runner import on_devices


def test_a_cotangent_goes_to_the_devices_the_judge_names():
    moved = on_devices(torch.ones(2, 3), ["meta"])
    assert moved.device.type == "meta" and moved.shape == (2, 3)
    pair = on_devices((torch.ones(2), torch.zeros(3)), ["meta", "cpu"])
    assert isinstance(pair, tuple) and [t.device.type for t in pair] == ["meta", "cpu"]


def test_without_a_matching_list_of_devices_it_stays_where_it_came():
    cotangent = (torch.ones(2), torch.zeros(3))
    assert on_devices(cotangent, None) is cotangent
    assert on_devices(cotangent, ["meta"]) is cotangent  # one device for two parts: not this cotangent's
