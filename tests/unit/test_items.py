"""Item analysis of a class: which submissions count for a check, the point-biserial correlation, and
the flags that put a bad check at the top."""

import numpy as np
import pytest

from attnlab.core.status import Status
from attnlab.instructor.items import MIN_POPULATION, analyse, point_biserial


def check(name: str, passed: bool, *, visible=True, kind="case", status=None) -> dict:
    return {"name": name, "kind": kind, "visible": visible, "passed": passed,
            "status": str(status or (Status.PASSED if passed else Status.FAILED)), "diagnosis": ""}


def result(name: str, score: float, checks: list[dict], exercise="ex") -> dict:
    return {"submission": name, "score": score, "max_score": 10,
            "exercises": [{"id": exercise, "status": "failed", "score": score, "checks": checks}]}


def test_point_biserial_is_pearson_with_a_zero_one_variable():
    rng = np.random.default_rng(0)
    totals = rng.normal(50, 10, 40)
    passed = totals + rng.normal(0, 10, 40) > 50
    expected = np.corrcoef(passed.astype(float), totals)[0, 1]
    assert point_biserial(passed.tolist(), totals.tolist()) == pytest.approx(expected)
    assert point_biserial([True, True], [1.0, 2.0]) is None  # everyone passed: undefined
    assert point_biserial([True, False], [3.0, 3.0]) is None  # equal totals: undefined


def test_bad_checks_come_first_with_their_reasons():
    results = []
    for i in range(MIN_POPULATION + 10):
        strong = i % 2 == 0
        results.append(result(f"s{i:02d}", 9.0 if strong else 2.0, [
            check("good", strong),  # strong pass, weak fail: discriminates
            check("backwards", not strong),  # the opposite: a broken test or unclear instructions
            check("impossible", False),  # nobody passes
            check("hidden_trap", False, visible=False),  # everyone passes the visible ones, fails this one
        ]))
    items, gaps = analyse(results, ["ex"])
    by_name = {i.name: i for i in items}
    assert [i.name for i in items] == ["hidden_trap", "impossible", "backwards", "good"]  # ties by name
    assert by_name["impossible"].flags == ("never",) and by_name["hidden_trap"].flags == ("never", "hidden_gap")
    assert by_name["backwards"].flags == ("negative",) and by_name["backwards"].discrimination == pytest.approx(-1)
    assert by_name["good"].flags == () and by_name["good"].discrimination == pytest.approx(1)
    assert by_name["good"].pass_rate == 0.5 and by_name["good"].difficulty == "medium"
    (gap,) = gaps
    assert gap.hidden_rate == 0 and gap.visible_rate == pytest.approx(1 / 3) and gap.visible_only == 0


def test_only_submissions_whose_code_ran_count():
    ran = [result(f"r{i}", 5.0, [check("a", i % 2 == 0), check("h", False, visible=False)]) for i in range(4)]
    stub = result("stub", 0.0, [check("a", False, status=Status.NOT_IMPLEMENTED),
                                check("h", False, visible=False, status=Status.NOT_IMPLEMENTED)])
    crashed = result("crashed", 0.0, [check("a", False, status=Status.ERROR),
                                      check("h", False, visible=False, status=Status.ERROR)])
    no_checks = {"submission": "old", "score": 0, "max_score": 10,
                 "exercises": [{"id": "ex", "status": "error", "score": 0}]}  # a bad upload, or an old result
    items, gaps = analyse([*ran, stub, crashed, no_checks], ["ex"])
    assert {i.name: (i.population, i.passed) for i in items} == {"a": (4, 2), "h": (4, 0)}
    assert gaps[0].population == 4
    assert gaps[0].visible_only == 2  # r0 and r2 passed every visible check and failed the hidden one
    assert all(i.flags in ((), ("never",)) for i in items)  # 4 submissions: too few to flag more than "never"
