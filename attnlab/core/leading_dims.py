"""Failures that follow the input's number of leading dimensions: code written for (batch, seq, d) alone.

Every stub takes any number of leading dimensions (`... seq d_in`), and the cases give none, one and
several. The course notes' modules are written for 3-D input (`b, num_tokens, d_in = x.shape`,
`keys.transpose(1, 2)`): such code passes the cases with one leading dimension and raises on the others,
where the exception alone ("not enough values to unpack") does not say why. When every case that raised
has a count of leading dimensions that no passing case has, each gets a hint saying so, and what to do if
the code is written for 3-D input (the cases alone cannot tell that it is: a bug may raise on the cases that
happen to have those counts).
"""

import functools
import inspect
from collections.abc import Callable, Sequence
from dataclasses import replace

from attnlab.core.i18n import t
from attnlab.core.results import CheckResult
from attnlab.core.spec import CaseSpec
from attnlab.core.status import Status
from attnlab.core.typecheck import tensor_hints


@functools.cache  # asked once per exercise of every submission; a signature never changes
def batched_argument(signature: Callable) -> tuple[str, int] | None:
    """The first argument annotated with leading dimensions (`... seq d`), and how many named dimensions
    follow them; None where no argument has any."""
    try:
        parameters = inspect.signature(signature).parameters
    except (TypeError, ValueError):
        return None
    for name, parameter in parameters.items():
        for hint in tensor_hints(parameter.annotation):
            dims = hint.dim_str.split()
            if dims and (dims[0] == "..." or dims[0].startswith("*")):
                return name, len(dims) - 1
    return None


def leading_dims(case: CaseSpec, argument: tuple[str, int]) -> int | None:
    """How many leading dimensions the case gives that argument (None: the case builds it otherwise)."""
    name, named = argument
    recipe = case.args.get(name)
    if recipe is None:
        return None
    if recipe.shape:
        return len(recipe.shape) - named
    if recipe.kind == "literal" and isinstance(recipe.value, list):  # a nested list: its depth is its rank
        rank, value = 0, recipe.value
        while isinstance(value, list) and value:
            rank, value = rank + 1, value[0]
        return rank - named
    return None


def with_hints(signature: Callable, cases: Sequence[CaseSpec], results: list[CheckResult],
               lang: str) -> list[CheckResult]:
    """`results` (one per case, in order), the raised ones hinted where the count of leading dimensions
    tells them apart from every passing case."""
    argument = batched_argument(signature)
    if argument is None:
        return results
    counts = [leading_dims(case, argument) for case in cases]
    working = {n for n, r in zip(counts, results) if r.passed and n is not None}
    # a failure with advice of its own (two dtypes met: hint_dtype_mismatch) is not about the dimensions
    raised = [i for i, r in enumerate(results) if r.kind == "case" and r.status == Status.ERROR and not r.hint]
    if not working or not raised or any(counts[i] is None or counts[i] in working for i in raised):
        return results
    hint = t("hint_leading_dims", lang, works=_listed(working), counts=_listed({counts[i] for i in raised}))
    hinted = list(results)
    for i in raised:
        hinted[i] = replace(results[i], hint=hint)
    return hinted


def _listed(counts: set[int]) -> str:
    return ", ".join(map(str, sorted(counts)))
