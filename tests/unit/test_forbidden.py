"""The forbidden-call guard: its function layer (every call) and its deep ATen layer (every case)."""

import pytest
import torch

from attnlab.core.forbidden import guard
from attnlab.core.outcomes import ForbiddenCall

SOFTMAX_BANS = ("torch.softmax", "torch.nn.functional.softmax", "aten._softmax", "aten._log_softmax")
X = torch.randn(2, 3)

PYTHON_ROUTES = {  # reached from Python: the function layer alone sees them
    "F.softmax": lambda: torch.nn.functional.softmax(X, -1),
    "alias of torch.softmax": lambda: getattr(torch, "soft" + "max")(X, -1),
    "torch.ops.aten._softmax": lambda: torch.ops.aten._softmax(X, -1, False),
    "torch.ops.aten._softmax.default": lambda: torch.ops.aten._softmax.default(X, -1, False),
    "torch._C._VariableFunctions._softmax": lambda: torch._C._VariableFunctions._softmax(X, -1, False),
}
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
