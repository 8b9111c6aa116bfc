"""RemoteImpl against one shared runner: results, outcomes and what the sandbox keeps out of reach.

All functions live in one small submission, so a single runner (one `import torch`) serves the file.
Functions that probe the sandbox return torch.tensor([flags]): 1 where the forbidden thing worked.
"""

import os
import socket
import textwrap
import uuid
from pathlib import Path

import pytest
import torch

from attnlab.core import frameworks
from attnlab.core.config import Limits
from attnlab.core.outcomes import ForbiddenCall, MemoryLimit, NotImplementedByStudent, SubmissionError
from attnlab.grade.judge.remote import RemoteImpl
from attnlab.grade.sandbox.levels import isolation_level

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes

REPO = Path(__file__).resolve().parents[2]
SECRET = f"seed-{uuid.uuid4().hex}"

SOURCE = """
import os, socket, sys, torch

def run_softmax(x, dim=-1):
    e = torch.exp(x - x.max(dim, keepdim=True).values)
    return e / e.sum(dim, keepdim=True)

def run_todo(x):
    raise NotImplementedError("write me")

def run_list(x):
    return [1.0, 2.0]

def run_no_return(x):
    out = x * 2

def run_detached(x):
    return x.detach() * 2

def run_two_dtypes(x):
    return x.double() @ x.reshape(-1, 1)

def run_banned(x):
    return torch.softmax(x, -1)

def run_inplace(x):
    x.mul_(2)
    return x.clone()

def run_alias(x):
    return x

def run_strides(x):
    return torch.tensor(list(x.stride()) + [x.storage_offset()])

def run_args(x, generator, scale, flag, device, nothing):
    assert flag is True and nothing is None and str(device) == "cpu"
    return torch.rand(3, generator=generator) * scale

def run_complex(x):
    return torch.zeros(2, dtype=torch.complex64)

def run_recursion(x):
    def down(n):
        return down(n + 1)
    return down(0)

def run_memory_bomb(x):
    return torch.ones(1 << 33)

def run_list_bomb(x):
    hoard = [bytearray(1 << 24) for _ in range(1000)]
    return torch.zeros(1)

def run_print_flood(x):
    for i in range(200_000):
        print("flood line", i)
    print("THE END")
    return torch.zeros(1)

def can(action):
    try:
        action()
        return 1.0
    except Exception:
        return 0.0

def run_read_hidden(x):
    paths = [__HIDDEN__]
    def read(p):
        if os.path.isdir(p):
            if not os.listdir(p):
                raise FileNotFoundError(p)
        elif not open(p).read():
            raise EOFError(p)
    return torch.tensor([can(lambda p=p: read(p)) for p in paths])

def run_write_outside(x):
    def write(p):
        with open(p, "w") as f:
            f.write("pwned")
    flags = [can(lambda p=p: write(p)) for p in [__OUTSIDE__]]
    flags.append(can(lambda: write("inside.txt")) - 1.0)  # scratch (cwd) stays writable: 0 means ok
    return torch.tensor(flags)

def run_write_tmp(x):
    with open(__CONTROL__, "w") as f:
        f.write("written")
    return torch.ones(1)

def run_snoop(x):
    judge_cmdline = lambda: open("/proc/__JUDGE__/cmdline", "rb").read().index(__JUDGE_CMDLINE__)
    connect = lambda: socket.create_connection(("127.0.0.1", __PORT__), timeout=1)
    secret = lambda: [v for v in os.environ.values() if "__SECRET__" in v][0]
    status = open("/proc/self/status").read()
    caps = float("CapEff:\\t0000000000000000" not in status)
    no_new_privs = float("NoNewPrivs:\\t1" not in status)
    flags = [can(judge_cmdline), can(connect), can(secret), caps, no_new_privs, float(os.getuid())]
    return torch.tensor(flags)
"""



def returned(impl, function, module="softmax", forbidden=(), **kwargs):
    """One call through the runner: what it returned (output, inputs modified), or the Outcome raised."""
    [got] = impl.call_many(exercise=function, module=module, function=function, calls=[kwargs],
                           forbidden_calls=forbidden)
    if isinstance(got, Exception):
        raise got
    return got


def call(impl, function, **kwargs):
    return returned(impl, function, **kwargs).output


BROKEN = """
def run_broken(x):
    return x +
"""
# saved by an editor in a Chinese Windows' code page: the docstring on line 4 is not UTF-8
GBK = '"""Softmax."""\n\ndef run_gbk(x):\n    """数值稳定：先减去最大值。"""\n    return x\n'.encode("gbk")


@pytest.fixture(scope="module")
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server
    server.close()


@pytest.fixture(scope="module")
def shared(tmp_path_factory, listener):
    """One runner for the whole file, hiding the repo dirs plus a seed file and an output dir."""
    root = tmp_path_factory.mktemp("shared")
    seed_file, output_dir = root / "seed.txt", root / "results"
    seed_file.write_text(SECRET)
    output_dir.mkdir()
    (output_dir / "grades.json").write_text("{}")
    hidden = [REPO / "reference" / "softmax.py", REPO / "spec", REPO / "fixtures", seed_file, output_dir]
    outside = [REPO / f"pwned-{root.name}", root / "pwned", "/tmp/pwned-x", "/dev/shm/pwned-x",
               "/var/tmp/pwned-x", REPO / "reference" / "pwned"]
    probed = [*hidden, output_dir / "grades.json"]
    source = (SOURCE.replace("__HIDDEN__", ", ".join(repr(str(p)) for p in probed))
              .replace("__OUTSIDE__", ", ".join(repr(str(p)) for p in outside))
              .replace("__JUDGE__", str(os.getpid())).replace("__PORT__", str(listener.getsockname()[1]))
              # the judge's own command line (pytest's, or an xdist worker's), not that of another process
              # the runner's pid namespace may give that pid
              .replace("__JUDGE_CMDLINE__", repr(Path("/proc/self/cmdline").read_bytes()))
              .replace("__SECRET__", SECRET).replace("__CONTROL__", repr(str(root / "control.txt"))))
    package = root / "misc"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "softmax.py").write_text(textwrap.dedent(source))
    (package / "broken.py").write_text(BROKEN)
    (package / "gbk.py").write_bytes(GBK)
    os.environ["ATTNLAB_TEST_SECRET"] = SECRET  # the judge's environment must not reach the runner
    scratch = root / "scratch"
    scratch.mkdir()
    hidden_dirs = [REPO / "reference", REPO / "spec", REPO / "fixtures", seed_file, output_dir]
    impl = RemoteImpl(package, name="misc", adapter=frameworks.default(), limits=Limits(timeout_s=20, memory_mb=1536),
                      hidden_paths=hidden_dirs, scratch_root=scratch)
    impl.start()
    yield impl, outside, package, hidden_dirs
    impl.close()
    del os.environ["ATTNLAB_TEST_SECRET"]


def test_isolation_level_here():
    # this machine allows namespaces: as root the runner drops to nobody, otherwise user namespaces
    expected = os.environ.get("ATTNLAB_EXPECT_ISOLATION") or (
        "root-dropped+namespaces" if os.geteuid() == 0 else "user-namespaces")
    assert isolation_level() == expected


def test_honest_submission_returns_the_right_tensor(shared):
    impl, *_ = shared
    x = torch.randn(4, 5, dtype=torch.float64)
    out = call(impl, "run_softmax", x=x, dim=-1)
    assert type(out) is torch.Tensor and out.dtype == torch.float64
    torch.testing.assert_close(out, torch.softmax(x, -1))


def test_layouts_reach_the_function(shared):
    impl, *_ = shared
    x = torch.randn(3, 4)
    assert call(impl, "run_strides", x=x).tolist() == [4, 1, 0]
    assert call(impl, "run_strides", x=x.mT.contiguous().mT).tolist() == [1, 3, 0]
    assert call(impl, "run_strides", x=x[:, ::2]).tolist() == [4, 2, 0]


def test_generator_value_and_device_arguments(shared):
    impl, *_ = shared
    out = call(impl, "run_args", x=torch.zeros(1), generator=torch.Generator().manual_seed(7), scale=2.0,
               flag=True, device=torch.device("cpu"), nothing=None)
    torch.testing.assert_close(out, torch.rand(3, generator=torch.Generator().manual_seed(7)) * 2.0)


def test_vjp_returns_output_and_gradients(shared):
    impl, *_ = shared
    x, cot = torch.randn(2, 3, dtype=torch.float64), torch.randn(2, 3, dtype=torch.float64)
    out, grads = impl.vjp(exercise="softmax", module="softmax", function="run_softmax", kwargs={"x": x},
                          forbidden_calls=(), wrt=("x",), cotangent=cot)
    leaf = x.clone().requires_grad_(True)
    (expected,) = torch.autograd.grad(torch.softmax(leaf, -1), leaf, cot)
    torch.testing.assert_close(out, torch.softmax(x, -1))
    torch.testing.assert_close(grads["x"], expected)


@pytest.mark.parametrize("function, outcome, message", [
    ("run_todo", NotImplementedByStudent, "not implemented yet"),
    ("run_list", SubmissionError, "returned list of float, float, expected a torch.Tensor"),
    ("run_complex", SubmissionError, "complex64 cannot be sent"),
    ("run_recursion", SubmissionError, "RecursionError"),
    ("run_missing", NotImplementedByStudent, "run_missing is missing"),
])
def test_outcomes_come_back_as_harness_exceptions(shared, function, outcome, message):
    impl, *_ = shared
    with pytest.raises(outcome, match=message):
        call(impl, function, x=torch.ones(2))


def test_an_outcome_keeps_its_advice_across_the_channel(shared):
    """What the runner raised with a hint of its own (Outcome.with_hint) arrives with it, as pytest shows it: a
    function without `return`, one returning a list, one whose output does not depend on its input through
    autograd, and one where two dtypes meet."""
    impl, *_ = shared
    with pytest.raises(SubmissionError, match="returned NoneType, expected a torch.Tensor") as raised:
        call(impl, "run_no_return", x=torch.ones(2))
    assert raised.value.hint.key == "hint_returned_none"
    assert "end run_no_return with `return` and its result" in raised.value.hint.text("en")
    with pytest.raises(SubmissionError, match="returned list of float, float") as raised:
        call(impl, "run_list", x=torch.ones(2))
    assert raised.value.hint.text("en").startswith("run_list must return a torch.Tensor (a tuple of them")
    with pytest.raises(SubmissionError, match="not differentiable") as raised:
        impl.vjp(exercise="softmax", module="softmax", function="run_detached", kwargs={"x": torch.ones(2)},
                 forbidden_calls=(), wrt=("x",), cotangent=torch.ones(2))
    assert raised.value.hint.key == "hint_gradient_unreached"
    with pytest.raises(SubmissionError, match="same dtype") as raised:
        call(impl, "run_two_dtypes", x=torch.ones(2))
    assert raised.value.hint.key == "hint_dtype_mismatch"


def test_syntax_error_in_a_module_names_file_and_line(shared):
    impl, *_ = shared
    with pytest.raises(SubmissionError, match=r"broken\.py:3"):
        returned(impl, "run_broken", module="broken", x=torch.ones(1))


def test_a_module_not_saved_as_utf8_is_named_with_the_line_of_its_first_foreign_byte(shared):
    impl, *_ = shared
    with pytest.raises(SubmissionError, match=r"not saved as UTF-8.*byte 0x[0-9a-f]{2} \(at gbk\.py:4\)"):
        returned(impl, "run_gbk", module="gbk", x=torch.ones(1))


def test_forbidden_call_inside_the_runner(shared):
    impl, *_ = shared
    with pytest.raises(ForbiddenCall, match="torch.softmax") as info:
        returned(impl, "run_banned", forbidden=("torch.softmax",), x=torch.ones(2))
    assert info.value.call == "torch.softmax"


def test_in_place_modification_is_reported_and_mirrored(shared):
    impl, *_ = shared
    x = torch.ones(3)
    assert returned(impl, "run_inplace", x=x).modified == ("x",) and torch.equal(x, torch.full((3,), 2.0))
    assert returned(impl, "run_softmax", x=torch.ones(3)).modified == ()


def test_returning_an_input_is_visible_as_aliasing(shared):
    impl, *_ = shared
    got = returned(impl, "run_alias", x=torch.randn(3))
    assert got.aliases == ("x",)


def test_memory_bombs_are_memory_limits_and_the_runner_survives(shared):
    impl, *_ = shared
    with pytest.raises(MemoryLimit):
        call(impl, "run_memory_bomb", x=torch.ones(1))
    with pytest.raises(MemoryLimit):
        call(impl, "run_list_bomb", x=torch.ones(1))
    assert call(impl, "run_softmax", x=torch.zeros(2)).tolist() == [0.5, 0.5]


def test_print_flood_is_capped_and_never_parsed(shared):
    impl, *_ = shared
    assert call(impl, "run_print_flood", x=torch.ones(1)).tolist() == [0.0]
    tail = impl.output_tail
    assert len(tail.encode()) <= 4096 and tail.endswith("THE END\n")


def test_hidden_paths_cannot_be_read(shared):
    impl, *_ = shared
    assert call(impl, "run_read_hidden", x=torch.ones(1)).tolist() == [0.0] * 6


def test_nothing_outside_scratch_can_be_written(shared):
    impl, outside, *_ = shared
    assert call(impl, "run_write_outside", x=torch.ones(1)).tolist() == [0.0] * (len(outside) + 1)
    assert not [p for p in outside if os.path.exists(p)]


def test_judge_process_network_environment_and_privileges_are_out_of_reach(shared):
    impl, *_ = shared
    judge, network, secret, caps, no_new_privs, uid = call(impl, "run_snoop", x=torch.ones(1)).tolist()
    assert (judge, network, secret, caps, no_new_privs) == (0, 0, 0, 0, 0)
    assert uid == (65534 if os.geteuid() == 0 else 0)  # nobody, or root of its own user namespace


def test_control_without_isolation_the_same_probes_succeed(shared, tmp_path):
    """rlimits-only hides nothing: the probes above must then see everything (so their zeros are real)."""
    _, _, package, hidden = shared
    impl = RemoteImpl(package, name="control", adapter=frameworks.default(), limits=Limits(isolation="rlimits-only"),
                      hidden_paths=hidden,
                      scratch_root=tmp_path)
    with impl:
        read = call(impl, "run_read_hidden", x=torch.ones(1)).tolist()
        judge, network, secret, *_ = call(impl, "run_snoop", x=torch.ones(1)).tolist()
        assert call(impl, "run_write_tmp", x=torch.ones(1)).tolist() == [1.0]
    assert (read[0], read[3], read[4], read[5]) == (1, 1, 1, 1)  # reference/softmax.py, seed, output dir
    assert (judge, network, secret) == (1, 1, 0)  # the environment is clean even here
    assert (package.parent / "control.txt").read_text() == "written"
