"""The exercise checks, one test per case, property and quiz question, parametrized from spec/.

Run against another implementation with `pytest --impl student_template` or `--impl PATH`.
"""

from harness.checks import run_case, run_property
from harness.pytest_plugin import context_for, quiz_result, record


def test_case(attnlab_case, request):
    ctx = context_for(request.config, attnlab_case.exercise)
    record(request.config, attnlab_case.exercise, run_case(ctx, attnlab_case.spec))


def test_property(attnlab_property, request):
    ctx = context_for(request.config, attnlab_property.exercise)
    record(request.config, attnlab_property.exercise, run_property(ctx, attnlab_property.spec))


def test_quiz(attnlab_question, request):
    record(request.config, attnlab_question.exercise, quiz_result(request.config, attnlab_question))
