"""The catalogue of every sentence the harness says (see attnlab.core.i18n), one module per area so each
area's sentences sit together. Keys are stable and unique across areas; each entry has "en" and "zh" (a
test checks both, and that every key used in the code exists).
"""

from attnlab.core.catalogue import (
    calls,
    cli,
    feedback,
    for_jax,
    grade,
    intake,
    laws,
    quiz,
    report,
    status,
    student,
    viz,
)

AREAS = (feedback, calls, laws, quiz, status, cli, grade, report, viz, intake, student,
         for_jax,)
CATALOGUE: dict[str, dict[str, str]] = {}
for _area in AREAS:
    _clash = CATALOGUE.keys() & _area.MESSAGES.keys()
    if _clash:
        raise ValueError(f"catalogue keys defined twice: {sorted(_clash)}")
    CATALOGUE.update(_area.MESSAGES)
