"""compare.excess: the worst element's error in tolerances, the unit of the mutation report's margins."""

import math

import torch

from attnlab.core.compare import excess, matches
from attnlab.core.spec import Tolerance

TOL = Tolerance(atol=1e-3, rtol=1e-2)


def test_excess_is_error_over_what_the_tolerance_allows_there():
    expected = torch.tensor([0.0, 10.0])
    got = torch.tensor([0.0005, 10.2])  # 0.5 of atol at 0; 0.2 / (1e-3 + 0.1) at 10
    assert math.isclose(excess(got, expected, TOL), 0.2 / 0.101, rel_tol=1e-6)
    assert excess(expected, expected, TOL) == 0.0


def test_below_one_is_exactly_what_passes():
    expected = torch.linspace(-3, 3, 50, dtype=torch.float64)
    for scale in (0.5, 0.99, 1.01, 2.0):
        got = expected + scale * (TOL.atol + TOL.rtol * expected.abs())
        assert (excess(got, expected, TOL) < 1) == matches(got, expected, TOL), scale


def test_nan_and_inf_where_expected_has_them_are_exact_elsewhere_infinitely_far():
    expected = torch.tensor([float("nan"), float("-inf"), 1.0])
    assert excess(expected.clone(), expected, TOL) == 0.0
    assert excess(torch.tensor([float("nan"), float("-inf"), float("nan")]), expected, TOL) == math.inf
    assert excess(torch.zeros(2), torch.zeros(3), TOL) == math.inf
