"""The swap guard (attnlab.core.frameworks.swap) remembers where it found each forbidden function and rescans
only what changed: these check that what changes between calls (a module imported since, a name bound into a
module already scanned, a forbidden function that only now resolves) is still caught."""

import sys
import types

import pytest

from attnlab.core.frameworks.swap import SwapGuard
from attnlab.core.outcomes import ForbiddenCall


def softmax(x):
    return "the framework's softmax"


def log_softmax(x):
    return "the framework's log_softmax"


@pytest.fixture
def framework():
    """A framework `fakefw` of two modules: fakefw.special defines softmax, fakefw.util imports it."""
    made = {}

    def module(name, **attrs):
        made[name] = types.ModuleType(name)
        vars(made[name]).update(attrs)
        sys.modules[name] = made[name]
        return made[name]

    root = module("fakefw")
    root.special = module("fakefw.special", softmax=softmax)
    root.util = module("fakefw.util", helper=softmax)
    yield module
    for name in made:
        sys.modules.pop(name, None)


def guarded(guard, call, names=("fakefw.special.softmax",)):
    with pytest.raises(ForbiddenCall) as raised:
        with guard.guard("softmax", names):
            call()
    return raised.value.call


def test_every_reference_is_swapped_and_put_back(framework):
    guard = SwapGuard(("fakefw",))
    util = sys.modules["fakefw.util"]
    assert guarded(guard, lambda: util.helper(1)) == "fakefw.special.softmax"
    assert util.helper is softmax and sys.modules["fakefw.special"].softmax is softmax


def test_a_name_bound_into_a_module_already_scanned_is_caught_after_the_next_import(framework):
    guard = SwapGuard(("fakefw",))
    util = sys.modules["fakefw.util"]
    guarded(guard, lambda: util.helper(1))  # every module scanned and remembered
    util.cached = softmax  # as a package's __getattr__ caches what it returned, or a lazy import binds
    framework("fakefw.later")  # an import: sys.modules changed
    assert guarded(guard, lambda: util.cached(1)) == "fakefw.special.softmax"


def test_a_module_imported_after_the_first_guard_is_scanned(framework):
    guard = SwapGuard(("fakefw",))
    guarded(guard, lambda: sys.modules["fakefw.util"].helper(1))
    later = framework("fakefw.nn", act=softmax)
    assert guarded(guard, lambda: later.act(1)) == "fakefw.special.softmax"
    assert later.act is softmax


def test_a_forbidden_name_that_resolves_only_later_is_looked_for_in_every_module(framework):
    """A name that does not resolve yet guards nothing at first; once it resolves (here bound into its module
    later, with no import in between), the modules indexed before are searched for it too."""
    guard = SwapGuard(("fakefw",))
    names = ("fakefw.special.softmax", "fakefw.extra.log_softmax")
    extra = framework("fakefw.extra")
    sys.modules["fakefw.util"].other = log_softmax  # there from the start, not forbidden yet
    guarded(guard, lambda: sys.modules["fakefw.util"].helper(1), names)
    extra.log_softmax = log_softmax
    assert guarded(guard, lambda: sys.modules["fakefw.util"].other(1), names) == "fakefw.extra.log_softmax"


def test_a_forbidden_function_rebound_in_place_is_caught_by_its_own_name(framework):
    """A module that replaces an attribute in place (a lazy placeholder resolving itself) keeps its size, so
    the index does not see it again; the name's own place is swapped all the same."""
    guard = SwapGuard(("fakefw",))
    special = sys.modules["fakefw.special"]
    guarded(guard, lambda: special.softmax(1))

    def resolved_softmax(x):
        return "the real one, loaded late"

    special.softmax = resolved_softmax  # same namespace size: the index keeps the old entry
    framework("fakefw.later")  # sys.modules changed: places are looked up again
    assert guarded(guard, lambda: special.softmax(1)) == "fakefw.special.softmax"
    assert special.softmax is resolved_softmax
