"""The forbidden-call guard: its function layer (every call) and its deep ATen layer (every case), the
latter both as tripwire kernels (torch >= 2.9) and as the TorchDispatchMode older torch gets."""

import threading

import pytest
import torch

from attnlab.core import tripwires
from attnlab.core.forbidden import guard
from attnlab.core.outcomes import ForbiddenCall


@pytest.fixture(autouse=True, params=["tripwires", "dispatch mode"])
def deep_layer(request, monkeypatch):
    """Every test runs with each deep layer (the function layer is the same in both)."""
    if request.param == "dispatch mode":
        monkeypatch.setattr(tripwires, "AVAILABLE", False)
    elif not tripwires.AVAILABLE:
        pytest.skip("this torch has no torch.library.get_kernel (before 2.9): only the dispatch mode")
    return request.param

SOFTMAX_BANS = ("torch.softmax", "torch.nn.functional.softmax", "aten._softmax", "aten._log_softmax")
X = torch.randn(2, 3)

PYTHON_ROUTES = {  # reached from Python: the function layer alone sees them
    "F.softmax": lambda: torch.nn.functional.softmax(X, -1),
    "alias of torch.softmax": lambda: getattr(torch, "soft" + "max")(X, -1),
    "torch.ops.aten._softmax": lambda: torch.ops.aten._softmax(X, -1, False),
    "torch.ops.aten._softmax.default": lambda: torch.ops.aten._softmax.default(X, -1, False),
    "torch._C._VariableFunctions._softmax": lambda: torch._C._VariableFunctions._softmax(X, -1, False),
}


def _in_inference_mode():
    with torch.inference_mode():  # no autograd keys at all: the backend's kernel is still reached
        return torch.special.log_softmax(torch.randn(2, 3), -1)


CPP_ROUTES = {  # an unbanned function whose C++ runs a banned ATen op: only the deep layer sees it
    "torch.special.log_softmax": lambda: torch.special.log_softmax(X, -1),
    "F.cross_entropy": lambda: torch.nn.functional.cross_entropy(X, torch.tensor([0, 1])),
}


@pytest.mark.parametrize("deep", [False, True])
@pytest.mark.parametrize("route", sorted(PYTHON_ROUTES))
def test_python_routes_are_caught_by_either_layer(route, deep):
    with pytest.raises(ForbiddenCall, match="forbidden call"):
        with guard("softmax", SOFTMAX_BANS, deep=deep):
            PYTHON_ROUTES[route]()


@pytest.mark.parametrize("route", sorted(CPP_ROUTES))
def test_routes_inside_cpp_need_the_deep_layer(route):
    with pytest.raises(ForbiddenCall, match="aten._log_softmax"):
        with guard("softmax", SOFTMAX_BANS, deep=True):
            CPP_ROUTES[route]()
    with guard("softmax", SOFTMAX_BANS, deep=False):  # the laws' layer: documented as not seeing these
        CPP_ROUTES[route]()


@pytest.mark.parametrize("deep", [False, True])
def test_an_own_softmax_is_allowed_and_a_caught_exception_still_counts(deep):
    with guard("softmax", SOFTMAX_BANS, deep=deep) as hits:
        e = X.exp()
        e / e.sum(-1, keepdim=True)
    assert hits == []
    with pytest.raises(ForbiddenCall):
        with guard("softmax", SOFTMAX_BANS, deep=deep):
            try:
                torch.softmax(X, -1)
            except RuntimeError:
                pass  # swallowing the guard's exception does not hide the call


def test_an_unknown_name_is_an_error_naming_it():
    with pytest.raises(ValueError, match="torch.nn.functional.no_such_thing"):
        with guard("softmax", ("torch.nn.functional.no_such_thing",)):
            pass


@pytest.mark.parametrize("deep", [False, True])
def test_what_a_guard_remembered_allowing_does_not_carry_to_names_that_ban_it(deep):
    """Each layer remembers its verdict per function, per set of banned names: softmax allowed (and
    remembered) under one set is still caught, by the same route, under a set that bans it."""
    allowed = ("torch.nn.functional.scaled_dot_product_attention", "aten.scaled_dot_product_attention")
    for _ in range(2):
        with guard("scaled_dot_product_attention", allowed, deep=deep):
            torch.softmax(X, -1)
            torch.special.log_softmax(X, -1)
    with pytest.raises(ForbiddenCall):
        with guard("softmax", SOFTMAX_BANS, deep=deep):
            torch.softmax(X, -1)
    if deep:
        with pytest.raises(ForbiddenCall):
            with guard("softmax", SOFTMAX_BANS, deep=True):
                torch.special.log_softmax(X, -1)


def test_a_banned_backward_kernel_is_caught_when_autograd_runs_it():
    """A forward that is allowed, and a backward whose kernel is banned (attention_backward's spec)."""
    x = torch.randn(2, 3, requires_grad=True)
    with pytest.raises(ForbiddenCall, match="aten._softmax_backward_data"):
        with guard("attention_backward", ("aten._softmax_backward_data",), deep=True):
            torch.softmax(x, -1)[:, 0].sum().backward()
    torch.softmax(x, -1)[:, 0].sum().backward()  # outside a guard: the gradient as ever


def test_outside_a_guard_banned_operators_compute_as_before(deep_layer):
    """Once a guard has put tripwires on softmax's kernels, code outside any guard (the reference, the
    harness) gets the same values and gradients, through every overload."""
    with guard("softmax", SOFTMAX_BANS, deep=True):
        pass
    x = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    e = (x - x.amax(-1, keepdim=True)).exp()
    own = e / e.sum(-1, keepdim=True)
    weights = torch.randn(3, 5, dtype=torch.float64)
    got = torch.softmax(x, -1)
    torch.testing.assert_close(got, own)
    (grad,) = torch.autograd.grad((got * weights).sum(), x)
    (own_grad,) = torch.autograd.grad((own * weights).sum(), x)
    torch.testing.assert_close(grad, own_grad)
    out = torch.empty(3, 5, dtype=torch.float64)
    torch.ops.aten._softmax.out(x.detach(), -1, False, out=out)
    torch.testing.assert_close(out, own.detach())
    torch.testing.assert_close(torch.nn.functional.cross_entropy(x, torch.tensor([0, 1, 4])),
                               -own.log()[[0, 1, 2], [0, 1, 4]].mean())


def _in_a_thread():
    def run():
        try:
            torch.special.log_softmax(X, -1)
        except RuntimeError:
            pass  # the student's thread swallows it: the hit is recorded all the same

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()


def _into_an_out_tensor():
    return torch.log_softmax(X, -1, out=torch.empty_like(X))  # log_softmax.int_out runs _log_softmax.out


@pytest.mark.parametrize("route", [_in_a_thread, _in_inference_mode, _into_an_out_tensor],
                         ids=["in a thread", "in inference mode", "into an out= tensor"])
def test_routes_the_dispatch_mode_missed_are_caught_by_the_tripwires(deep_layer, route):
    """A mode is per thread, and it does not see every operator a kernel runs: a thread started inside the
    call, inference mode, or an out= overload escaped the old deep layer. A tripwire sits on the kernel
    itself and is armed for the whole process while the call runs."""
    if deep_layer == "dispatch mode":
        with guard("softmax", SOFTMAX_BANS, deep=True):
            route()  # not seen: the limits the tripwires remove
        return
    with pytest.raises(ForbiddenCall, match="aten._log_softmax"):
        with guard("softmax", SOFTMAX_BANS, deep=True):
            route()


def test_the_judge_names_the_banned_operators_its_framework_enforces():
    """What the forkserver wires before forking (judge.banned_operators): the course's "aten." bans, as
    packets, for torch; none for a framework that enforces other names."""
    from attnlab.core.config import resolve
    from attnlab.grade.judge.judge import banned_operators

    torch_run = resolve(assignment="attention", framework="torch")
    banned = banned_operators(torch_run)
    assert {"_softmax", "_log_softmax", "scaled_dot_product_attention"} <= set(banned)
    assert banned == tuple(sorted(set(banned))) and not any(b.startswith("aten.") for b in banned)
    assert banned_operators(resolve(assignment="attention", framework="numpy")) == ()
