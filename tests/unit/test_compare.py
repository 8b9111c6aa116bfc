"""compare.excess: the worst element's error in tolerances, the unit of the mutation report's margins; and
compare's and excess's quick paths, which must decide exactly as the plain definitions do."""

import math
import random

import torch

from attnlab.core.compare import compare, excess, matches
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


def plain_excess(got, expected, tol):
    """excess by its definition, every element through the same-value mask (no quick path)."""
    g, e = got.to(torch.float64), expected.to(torch.float64)
    same = (g == e) | (torch.isnan(g) & torch.isnan(e))
    ratio = ((g - e).abs() / (tol.atol + tol.rtol * e.abs())).nan_to_num(nan=math.inf, posinf=math.inf)
    ratio = torch.where(same, torch.zeros_like(ratio), ratio)
    return float(ratio.max()) if ratio.numel() else 0.0


def test_the_quick_paths_decide_as_isclose_and_the_definition_do_on_values_with_nan_inf_and_zeros():
    rng = random.Random(23)
    torch.manual_seed(23)
    specials = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-300, 1e300]
    passed = 0
    for _ in range(3000):
        shape = rng.choice([(3,), (2, 3), (4, 2, 2), (0, 3)])
        expected = torch.randn(shape, dtype=torch.float64) * rng.choice([1, 1e-6, 1e6])
        got = expected + torch.randn(shape, dtype=torch.float64) * rng.choice([0, 1e-9, 1e-6, 1e-3, 1])
        for t in (got, expected):
            if t.numel() and rng.random() < 0.3:
                t.view(-1)[rng.randrange(t.numel())] = rng.choice(specials)
        got = got.float() if rng.random() < 0.2 else got
        tol = Tolerance(atol=rng.choice([0.0, 1e-8, 1e-5]), rtol=rng.choice([0.0, 1e-5, 1e-3]))
        kept = expected.clone()
        close = bool(torch.isclose(got.to(torch.float64), expected, rtol=tol.rtol, atol=tol.atol, equal_nan=True).all())
        assert (compare(got, expected, tol) is None) == close, (got, expected, tol)
        worst, plain = excess(got, expected, tol), plain_excess(got, expected, tol)
        assert worst == plain, (got, expected, tol, worst, plain)
        assert worst >= 1 or close
        assert torch.equal(expected.nan_to_num(), kept.nan_to_num())  # in-place work never touches the inputs
        passed += close
    assert 500 < passed < 2500  # both outcomes were exercised
