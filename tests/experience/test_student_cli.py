"""`attnlab` in the repository: status, check (with diagnosis), hint, viz, submit, languages, and which
package it checks."""

import functools
import hashlib
import json
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest
from reference_copies import reference_copy, softmax_without_return

from attnlab.core import config, frameworks, paths
from attnlab.core.spec_load import load_course
from attnlab.grade.batch.submissions import MAX_ENTRIES, MAX_TOTAL_BYTES
from attnlab.student import cli, submit
from attnlab.student.cli import UsageError, main


def _visible_checks(exercise_id: str) -> int:
    exercise = load_course(paths.SPEC_DIR).get(exercise_id)
    return sum(c.visible for c in exercise.cases) + sum(p.visible for p in exercise.properties)


SOFTMAX_VISIBLE = _visible_checks("softmax")

EXAMPLES = paths.EXAMPLES_DIR
STUB = '    raise NotImplementedError("exercise softmax: implement run_softmax")\n'
SOFTMAX = ("    shifted = in_features - in_features.amax(dim=dim, keepdim=True)\n"
           "    exps = torch.exp(shifted)\n"
           "    return exps / exps.sum(dim=dim, keepdim=True)\n")
SOFTMAX_LAST_DIM = ("    exps = torch.exp(in_features - in_features.amax(dim=-1, keepdim=True))\n"
                    "    return exps / exps.sum(dim=-1, keepdim=True)\n")


def package_with_softmax(root: Path, body: str = SOFTMAX, name: str = "mine") -> Path:
    package = paths.copy_template(root / name, frameworks.default())
    softmax = package / "softmax.py"
    softmax.write_text(softmax.read_text(encoding="utf-8").replace(STUB, body), encoding="utf-8")
    return package


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_status_lists_every_exercise_with_status_and_visible_points(capsys, monkeypatch):
    monkeypatch.delenv("ATTNLAB_LANG", raising=False)
    code, out, _ = run(capsys, "status", "--impl", str(EXAMPLES / "alice_partial"), "--lang", "en")
    assert code == 0
    assert re.search(rf"softmax\s+passed\s+{SOFTMAX_VISIBLE}/{SOFTMAX_VISIBLE}\s+8\.00 / 8\n", out)
    assert re.search(rf"self_attention\s+not implemented\s+0/{_visible_checks('self_attention')}\s+0\.00 / 8\n", out)
    assert re.search(r"quiz\s+partly answered\s+8/9\s+– / 6", out)  # alice left one null
    total = re.search(r"total \(visible checks\)\s+([\d.]+) / 94\n", out)
    rows = re.findall(r"^\w+\s+[a-z ]+\s+\d+/\d+\s+([\d.]+) / \d+$", out, re.MULTILINE)
    assert total and float(total.group(1)) == pytest.approx(sum(map(float, rows))) and len(rows) == 12
    assert "Next: self_attention" in out


def test_status_in_chinese_and_language_option_before_the_command(capsys):
    code, out, _ = run(capsys, "--lang", "zh", "status", "--impl", str(EXAMPLES / "untouched_template"))
    assert code == 0 and "未实现" in out and "总计（公开检查）" in out and "0.00 / 94" in out


def test_check_shows_each_check_the_diagnosis_and_the_hints(capsys, tmp_path):
    package = package_with_softmax(tmp_path, SOFTMAX_LAST_DIM)
    code, out, _ = run(capsys, "check", "softmax", "--impl", str(package), "--lang", "en")
    assert code == 1
    assert "✓ case last_dim" in out and "✗ case first_dim: failed" in out
    assert "Likely cause:" in out and "max abs error" in out
    assert "Hints for softmax:" in out and "keepdim=True" in out
    assert re.search(rf"Score on the visible checks: [\d.]+ / 8 \(\d+/{SOFTMAX_VISIBLE} checks passed, failed\)", out)


def test_check_passes_and_says_where_to_start_when_not_implemented(capsys, tmp_path):
    assert run(capsys, "check", "softmax", "--impl", str(package_with_softmax(tmp_path)))[0] == 0
    untouched = str(EXAMPLES / "untouched_template")
    code, out, _ = run(capsys, "check", "rope", "--impl", untouched, "--lang", "en")
    assert code == 1 and "run_rope in rope.py still raises NotImplementedError" in out
    assert "more checks not run" in out


def test_check_of_an_exercise_built_on_a_broken_softmax_says_to_mend_softmax_first(capsys, tmp_path):
    """The student's run_scaled_dot_product_attention is right but calls their run_softmax, which returns
    nothing: `attnlab check scaled_dot_product_attention` opens by saying so (softmax's visible checks are run
    for it). Checking softmax itself, or sdpa over a softmax that works, says nothing of the kind."""
    working = reference_copy(tmp_path / "working")
    code, out, _ = run(capsys, "check", "scaled_dot_product_attention", "--impl", str(working), "--lang", "en")
    assert code == 0 and "Fix " not in out
    package = softmax_without_return(tmp_path / "mine")
    code, out, _ = run(capsys, "check", "scaled_dot_product_attention", "--impl", str(package), "--lang", "en")
    lines = out.splitlines()
    assert code == 1 and lines[0].startswith("scaled_dot_product_attention:")
    assert lines[1].strip() == ("Fix softmax first: run_scaled_dot_product_attention calls your run_softmax "
                                "(softmax), which fails its own checks, so the failures below may come from it "
                                "rather than from run_scaled_dot_product_attention.")
    code, out, _ = run(capsys, "check", "softmax", "--impl", str(package), "--lang", "zh")
    assert code == 1 and "请先修好" not in out and "Fix " not in out


def test_usage_errors_name_what_is_wrong(capsys, tmp_path):
    code, _, err = run(capsys, "check", "sofmax", "--lang", "en")
    assert code == 2 and "no exercise 'sofmax'" in err and "softmax" in err
    code, _, err = run(capsys, "check", "quiz", "--lang", "en")
    assert code == 2 and "quiz.yaml" in err
    code, _, err = run(capsys, "status", "--impl", str(tmp_path), "--lang", "en")
    assert code == 2 and "no __init__.py" in err and "softmax.py" in err and str(tmp_path) in err


def test_modules_without_init_are_checked_and_submitted_as_grading_takes_them(capsys, tmp_path, monkeypatch):
    """grade.py grades exercise modules uploaded without __init__.py (an empty one added): status, check and
    submit take the same folder, with the same verdict, instead of refusing it."""
    package = package_with_softmax(tmp_path, name="loose")
    (package / "__init__.py").unlink()
    code, out, _ = run(capsys, "check", "softmax", "--impl", str(package), "--lang", "en")
    assert code == 0 and "passed" in out
    code, out, _ = run(capsys, "status", "--impl", str(package), "--lang", "en")
    assert code == 0 and re.search(rf"softmax\s+passed\s+{SOFTMAX_VISIBLE}/{SOFTMAX_VISIBLE}", out)
    assert re.search(r"self_attention\s+not implemented", out)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "submit", "--impl", str(package), "--lang", "en", "--name", "li")
    with zipfile.ZipFile(tmp_path / "li-submission.zip") as zf:
        assert code == 0 and "loose/softmax.py" in zf.namelist() and "loose/__init__.py" not in zf.namelist()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "softmax.txt").write_text("not code")
    code, _, err = run(capsys, "status", "--impl", str(tmp_path / "notes"), "--lang", "en")
    assert code == 2 and "no __init__.py and none of the exercises' files" in err


def test_which_package_flag_then_env_then_ini_then_default(tmp_path, monkeypatch):
    monkeypatch.delenv("ATTNLAB_IMPL", raising=False)
    resolve_package = functools.partial(cli.resolve_package, run=config.resolve())
    for name in ("flag", "env", "ini", "attention"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
    with pytest.raises(UsageError, match="no package to check"):
        resolve_package(None, lang="en", root=tmp_path / "flag")
    assert resolve_package(None, lang="en", root=tmp_path) == tmp_path / "attention"
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\nattnlab_impl = "ini"\n')
    assert resolve_package(None, lang="en", root=tmp_path) == tmp_path / "ini"
    monkeypatch.setenv("ATTNLAB_IMPL", str(tmp_path / "env"))
    assert resolve_package(None, lang="en", root=tmp_path) == tmp_path / "env"
    assert resolve_package(str(tmp_path / "flag"), lang="en", root=tmp_path) == tmp_path / "flag"


def test_hint_in_both_languages(capsys):
    code, out, _ = run(capsys, "hint", "rope", "--lang", "en")
    assert code == 0 and "What to implement:" in out and "interleaved" in out
    code, out, _ = run(capsys, "hint", "rope", "--lang", "zh")
    assert code == 0 and "需要实现的内容" in out and "提示" in out


@pytest.mark.slow  # draws heatmaps with matplotlib
@pytest.mark.parametrize("exercise", ["multihead_self_attention", "rope"])
def test_viz_writes_a_heatmap_of_yours_beside_the_reference(capsys, tmp_path, exercise):
    out_png = tmp_path / f"{exercise}.png"
    code, out, _ = run(capsys, "viz", exercise, "--impl", str(EXAMPLES / "reference"), "-o", str(out_png),
                       "--lang", "en")
    assert code == 0 and f"wrote {out_png}" in out
    image = matplotlib.image.imread(out_png)
    assert image.shape[0] > 400 and image.shape[1] > 300
    assert len(np.unique(image.reshape(-1, image.shape[-1]), axis=0)) > 50  # a picture, not a blank page


def test_viz_still_draws_the_reference_when_yours_fails_and_names_what_it_supports(capsys, tmp_path):
    out_png = tmp_path / "v.png"
    code, out, _ = run(capsys, "viz", "causal_attention", "--impl", str(EXAMPLES / "untouched_template"),
                       "-o", str(out_png), "--lang", "en")
    assert code == 1 and "not implemented" in out and out_png.is_file()
    code, _, err = run(capsys, "viz", "dropout", "--lang", "en")
    assert code == 2 and "no picture for dropout" in err and "causal_attention" in err


def test_submit_zips_regular_files_with_a_manifest(tmp_path, monkeypatch, capsys):
    """(That grade.py grades such a zip is tested in test_autograder.py, through run_autograder.)"""
    package = package_with_softmax(tmp_path, name="mypkg")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "softmax.cpython-311.pyc").write_bytes(b"\0")
    (package / ".ipynb_checkpoints").mkdir()
    (package / "notes.txt").symlink_to("/etc/hostname")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    monkeypatch.chdir(out_dir)
    code, out, _ = run(capsys, "submit", "--impl", str(package), "--lang", "en", "--name", "Wei Zhang")
    archive = out_dir / "Wei_Zhang-submission.zip"
    assert code == 0 and str(archive.name) in out and "notes.txt" in out and "submitting as Wei_Zhang" in out
    with zipfile.ZipFile(archive) as zf:
        names = set(zf.namelist())
        manifest = json.loads(zf.read("MANIFEST.json"))
        contents = {n: zf.read(n) for n in names}
    shipped = {f"mypkg/{p.name}" for p in package.iterdir() if p.is_file() and not p.is_symlink()}
    assert names == shipped | {"MANIFEST.json"}
    assert manifest["format"] == "attnlab-submission/2" and manifest["student"] == "Wei_Zhang"
    assert manifest["package"] == "mypkg" and set(manifest["files"]) == shipped
    for name, entry in manifest["files"].items():
        assert entry["sha256"] == hashlib.sha256(contents[name]).hexdigest() == \
            hashlib.sha256((tmp_path / name).read_bytes()).hexdigest()
    monkeypatch.chdir(package)
    code, _, err = run(capsys, "submit", "--impl", str(package), "--lang", "en")
    assert code == 2 and "inside the package" in err


def test_submit_names_the_zip_after_the_repositorys_git_email_else_the_login(tmp_path, monkeypatch, capsys):
    """The machine's global git e-mail is never used (on a shared machine it is often someone else's); the
    repository's own is, and the line printed says where the name came from."""
    package = package_with_softmax(tmp_path, name="attention")
    git_config = tmp_path / "gitconfig"
    git_config.write_text("[user]\n\temail = someone.else@example.edu\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(git_config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for variable in ("LOGNAME", "USER", "LNAME", "USERNAME"):  # getpass.getuser reads these first
        monkeypatch.setenv(variable, "wang fang")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "submit", "--impl", str(package), "--lang", "en", "-o", str(tmp_path))
    assert code == 0 and (tmp_path / "wang_fang-submission.zip").is_file()
    assert "submitting as wang_fang (your login name; change it with --name)" in out
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "config", "user.email", "li.na@example.edu"], check=True)
    assert submit.default_name(package) == ("li.na", "git")
    code, out, _ = run(capsys, "submit", "--impl", str(package), "--lang", "en", "-o", str(tmp_path))
    assert code == 0 and (tmp_path / "li.na-submission.zip").is_file()
    assert "from user.email in this repository's git config" in out
    code, _, err = run(capsys, "submit", "--impl", str(package), "--lang", "en", "--name", "!!!")
    assert code == 2 and "--name '!!!'" in err


def test_submit_caps_match_the_graders():
    assert submit.MAX_ENTRIES <= MAX_ENTRIES and submit.MAX_TOTAL_BYTES <= MAX_TOTAL_BYTES


@pytest.mark.e2e
def test_console_script_is_installed():
    attnlab = shutil.which("attnlab", path=str(Path(sys.executable).parent))
    assert attnlab, "pip install -e . should install the attnlab console script"
    done = subprocess.run([attnlab, "hint", "softmax", "--lang", "en"], check=False, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "Hints for softmax:" in done.stdout


def test_status_checks_the_quiz_format_and_submit_warns_but_still_zips(capsys, tmp_path, monkeypatch):
    package = package_with_softmax(tmp_path)
    (package / "quiz.yaml").write_text("answers:\n  exercise_3_3_parameter_count: 2,360,064\n  query_role: b\n"
                                       "  key_role: d\n  dot_product_variance_scaled: one\n", encoding="utf-8")
    code, out, _ = run(capsys, "status", "--impl", str(package), "--lang", "en")
    assert code == 0 and re.search(r"quiz\s+format problem\s+2/9\s+– / 6", out)
    assert "quiz.yaml: key_role: 'd' is not one of the choices a, b, c" in out
    assert "quiz.yaml: dot_product_variance_scaled: 'one' is not a number" in out
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "submit", "--impl", str(package), "--lang", "en", "--name", "mine")
    assert code == 0 and (tmp_path / "mine-submission.zip").is_file()
    assert "warning: quiz.yaml: key_role: 'd' is not one of the choices" in out
    assert re.search(r"warning: quiz.yaml: 5 of 9 questions not answered: dot_product_variance_unscaled, "
                     r"exercise_3_2_argument, exercise_3_2_value, value_role, causal_mask_prevents", out)
    (package / "quiz.yaml").write_text((paths.REFERENCE_DIR / "quiz.yaml").read_text(encoding="utf-8"))
    code, out, _ = run(capsys, "status", "--impl", str(package), "--lang", "zh")
    assert re.search(r"quiz\s+已作答\s+9/9", out) and "需要修改" not in out
    code, out, _ = run(capsys, "submit", "--impl", str(package), "--lang", "en", "--name", "mine")
    assert code == 0 and "warning" not in out


LOOPS = ("    while True:  # never returns, and swallows what it can\n        try:\n            in_features = "
         "in_features + 0\n        except Exception:\n            pass\n")


@pytest.mark.slow  # a second of an endless loop, by design
def test_check_stops_an_endless_loop_at_the_grading_time_limit(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(config, "EXERCISE_CPU_S", 1.0)
    started = time.monotonic()
    code, out, _ = run(capsys, "check", "softmax", "--impl", str(package_with_softmax(tmp_path, LOOPS)),
                       "--lang", "en")
    assert code == 1 and "✗ case last_dim: timeout" in out and "used more than its 1 s of CPU time" in out
    general_hint = load_course(paths.SPEC_DIR).get("softmax").hints["en"][0]
    assert "a loop that never ends" in out and general_hint not in out  # advice about time, not about values
    assert f"({SOFTMAX_VISIBLE - 1} more checks not run" in out and time.monotonic() - started < 30
    assert signal.getsignal(signal.SIGPROF) in (signal.SIG_DFL, None) and signal.getitimer(signal.ITIMER_PROF)[0] == 0


def test_the_student_limit_is_the_graders():
    from attnlab.grade.batch.cli import DEFAULT_TIMEOUT_S, parse_args

    assert parse_args([]).timeout is None and DEFAULT_TIMEOUT_S == config.EXERCISE_CPU_S  # None: no --budget
    for name in frameworks.NAMES:  # what grade.py's runners get is what the student's clock gets (Run.limits)
        limits = config.Limits.for_adapter(frameworks.adapter(name))
        assert limits.timeout_s == config.exercise_cpu_s(frameworks.adapter(name))


def test_an_import_error_is_shown_once_with_the_students_file_and_line(capsys, tmp_path):
    package = package_with_softmax(tmp_path, SOFTMAX + "    def broken(:\n")
    code, out, _ = run(capsys, "check", "softmax", "--impl", str(package), "--lang", "en")
    line = 1 + (package / "softmax.py").read_text().splitlines().index("    def broken(:")
    assert code == 1 and out.count("SyntaxError") == 1, out
    assert f"importing softmax.py failed: SyntaxError: invalid syntax (at softmax.py:{line})" in out
    assert f"({SOFTMAX_VISIBLE - 1} more checks failed the same way)" in out and str(tmp_path) not in out
    package = package_with_softmax(tmp_path, name="broken_init")  # a fresh path: imported packages are kept
    (package / "__init__.py").write_text("import torch\nraise ValueError('oops')\n")
    code, out, _ = run(capsys, "status", "--impl", str(package), "--lang", "en")
    assert out.count("ValueError") == 1 and "your package does not import: ValueError: oops (at __init__.py:2)" in out
    assert out.count(str(tmp_path)) == 1  # the title names the package checked; no message does


def test_a_file_saved_in_a_code_page_is_named_with_its_line_and_how_to_save_it(capsys, tmp_path):
    """An editor on a Chinese Windows may save GBK: Python refuses the file, and says so at the line where the
    token holding the byte ends (its docstring's last line) or in words about PEP 263; the student reads the
    line of the first byte that is not UTF-8 and what to do; for UTF-16, which Python reports without a file,
    that it is UTF-16, which no coding line can name. Declared on the first line, GBK imports and passes."""
    package = package_with_softmax(tmp_path)
    softmax = package / "softmax.py"
    lines = softmax.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("def run_softmax"))
    lines.insert(at, "# 数值稳定：先减去每一行的最大值\n")
    softmax.write_bytes("".join(lines).encode("gbk"))
    first = next(i for i, line in enumerate(lines, 1) if not line.isascii())  # what GBK and UTF-8 write apart
    code, out, _ = run(capsys, "check", "softmax", "--impl", str(package), "--lang", "en")
    assert code == 1 and out.count("not saved as UTF-8") == 1, out
    assert f"(at softmax.py:{first}) is not UTF-8. Save it as UTF-8 in your editor" in out, out
    assert "codec" not in out and f"({SOFTMAX_VISIBLE - 1} more checks failed the same way)" in out
    gbk = softmax.read_bytes()
    # Notepad's "Unicode" and Windows PowerShell's `>` write UTF-16: Python names neither the file nor the line
    utf16 = shutil.copytree(package, tmp_path / "utf16")  # a fresh path: imported packages are kept
    (utf16 / "softmax.py").write_bytes(gbk.decode("gbk").encode("utf-16"))
    (utf16 / "._attention.py").write_bytes(b"\0\5\x16\7\0\2\0\0Mac OS X")  # an AppleDouble file: never imported
    code, out, _ = run(capsys, "check", "softmax", "--impl", str(utf16), "--lang", "en")
    assert code == 1 and "the file (at softmax.py:1) is saved as UTF-16 (Notepad's" in out, out
    assert "a coding line cannot name UTF-16" in out and "-*- coding" not in out, out  # no advice that fails
    no_bom = shutil.copytree(package, tmp_path / "utf16le")  # UTF-16 without a byte-order mark: no file named
    (no_bom / "softmax.py").write_bytes(gbk.decode("gbk").encode("utf-16-le"))
    code, out, _ = run(capsys, "check", "softmax", "--impl", str(no_bom), "--lang", "zh")
    assert code == 1 and "是以 UTF-16 保存的" in out, out
    softmax.write_bytes(b"# -*- coding: gbk -*-\n" + gbk)
    fresh = shutil.copytree(package, tmp_path / "declared")
    code, out, _ = run(capsys, "check", "softmax", "--impl", str(fresh), "--lang", "en")
    assert code == 0, out


def test_a_file_named_in_another_case_is_named_with_the_rename_to_make(capsys, tmp_path, monkeypatch):
    """Softmax.py imports as softmax on Windows' and macOS's file systems only where Python does not look at
    the name (it compares names exactly on every system): said as such, where the function was looked for and
    where another module imports it, never as a missing function or under the package's internal name."""
    package = package_with_softmax(tmp_path)
    (package / "softmax.py").rename(package / "Softmax.py")
    code, out, _ = run(capsys, "check", "softmax", "--impl", str(package), "--lang", "en")
    assert code == 1 and "there is no softmax.py, but there is Softmax.py: Python's imports compare names" in out
    assert "is missing" not in out and "rename it to softmax.py" in out, out
    code, out, _ = run(capsys, "check", "simple_self_attention", "--impl", str(package), "--lang", "en")
    lines = (package / "attention.py").read_text(encoding="utf-8").splitlines()
    line = 1 + next(i for i, text in enumerate(lines) if "softmax import" in text)
    assert f"there is no softmax.py, but there is Softmax.py (at attention.py:{line})" in out, out
    monkeypatch.chdir(tmp_path)  # submit, which runs nothing, says so before the upload
    code, out, _ = run(capsys, "submit", "--impl", str(package), "--lang", "en", "--name", "mine")
    assert code == 0 and (tmp_path / "mine-submission.zip").is_file()
    assert ("warning: there is no softmax.py, but there is Softmax.py: Python's imports compare names exactly, so at "
            "grading softmax would score nothing; rename it to softmax.py") in out, out
    assert out.count("there is no") == 1, out  # the one module renamed, once
    (package / "Softmax.py").unlink()  # gone in every case: Python's words, with the student's module name
    fresh = shutil.copytree(package, tmp_path / "gone")  # a fresh path: imported packages are kept
    code, out, _ = run(capsys, "check", "simple_self_attention", "--impl", str(fresh), "--lang", "en")
    assert "No module named 'softmax'" in out and "attnlab_impl_" not in out, out


def test_renamed_parameters_are_named_as_the_cause_not_blamed_on_the_body(capsys, tmp_path, monkeypatch):
    """The checks pass arguments by the stub's names; a student who renamed them (x, axis) is told that, not that
    "your function raised TypeError", and a TypeError from inside the body is still the body's."""
    package = package_with_softmax(tmp_path, "    e = torch.exp(x - x.amax(dim=axis, keepdim=True))\n"
                                             "    return e / e.sum(dim=axis, keepdim=True)\n")
    softmax = package / "softmax.py"
    stub_line = 'def run_softmax(in_features: Float[Tensor, "*shape"], dim: int)'
    assert stub_line in softmax.read_text(encoding="utf-8")
    softmax.write_text(softmax.read_text(encoding="utf-8").replace(stub_line, "def run_softmax(x, axis=-1)"))
    code, out, _ = run(capsys, "check", "softmax", "--impl", str(package), "--lang", "en")
    assert code == 1 and "run_softmax(x, axis) takes no parameter named in_features, dim: the checks pass " \
                         "arguments by the stub's parameter names" in out, out
    assert "raised" not in out
    # the same for every case whatever its inputs: said once, with what to do instead of the exercise's hints
    assert out.count("takes no parameter named") == 1 and "inputs:" not in out, out
    assert f"({SOFTMAX_VISIBLE - 1} more checks failed the same way)" in out
    assert "no check can run until the function takes the stub's parameters" in out
    assert not any(hint in out for hint in load_course(paths.SPEC_DIR).get("softmax").hints["en"])
    monkeypatch.chdir(tmp_path)  # submit, which runs nothing, reads the def and says so before the upload
    code, out, _ = run(capsys, "submit", "--impl", str(package), "--lang", "en", "--name", "mine")
    assert code == 0 and (tmp_path / "mine-submission.zip").is_file()
    assert ("warning: run_softmax(x, axis) in softmax.py cannot be called as the checks call it, with the stub's "
            "parameters (in_features, dim) by name, so softmax would score nothing at grading") in out, out
    inner = package_with_softmax(tmp_path, "    return torch.softmax(in_features, dim, dim)\n", name="inner")
    code, out, _ = run(capsys, "check", "softmax", "--impl", str(inner), "--lang", "en")
    assert code == 1 and "your function raised TypeError" in out and "parameter" not in out, out
    added = package_with_softmax(tmp_path, SOFTMAX, name="added")  # a parameter of their own, without a default
    (added / "softmax.py").write_text((added / "softmax.py").read_text(encoding="utf-8").replace(
        stub_line, 'def run_softmax(in_features: Float[Tensor, "*shape"], dim: int, eps: float)'), encoding="utf-8")
    code, out, _ = run(capsys, "check", "softmax", "--impl", str(added), "--lang", "en")
    assert code == 1 and "run_softmax(in_features, dim, eps) also requires eps, which the stub does not have" in out
    code, out, _ = run(capsys, "submit", "--impl", str(added), "--lang", "en", "--name", "added")
    assert "warning: run_softmax(in_features, dim, eps) in softmax.py cannot be called as the checks call it" in out
    code, out, _ = run(capsys, "submit", "--impl", str(inner), "--lang", "en", "--name", "inner")
    assert "cannot be called" not in out  # the stub's parameters: nothing to say before grading

@pytest.mark.e2e
def test_ctrl_c_ends_check_cleanly(tmp_path):
    marker = tmp_path / "looping"
    body = f"    open({str(marker)!r}, 'w').close()\n" + LOOPS
    package = package_with_softmax(tmp_path, body)
    proc = subprocess.Popen([sys.executable, "-m", "attnlab.student.cli", "check", "softmax", "--impl", str(package),
                             "--lang", "en"], cwd=paths.ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not marker.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    assert marker.exists(), proc.communicate()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err == "attnlab check: interrupted\n" and "Traceback" not in out + err


def test_a_check_that_does_not_apply_is_said_and_not_counted(capsys):
    """NumPy has no autograd: the gradient law reads "not applicable", marked neither passed nor failed, and
    the counts and points are over the checks that apply."""
    numpy_reference = str(paths.reference_dir(frameworks.adapter("numpy")))
    code, out, _ = run(capsys, "check", "softmax", "--impl", numpy_reference, "--framework", "numpy", "--lang", "en")
    assert code == 0
    assert "– property gradient: not applicable in numpy: it has no automatic differentiation" in out
    assert "✗" not in out and re.search(r"8\.00 / 8 \((\d+)/\1 checks passed", out), out
    code, out, _ = run(capsys, "status", "--impl", numpy_reference, "--framework", "numpy", "--lang", "en")
    assert re.search(r"softmax\s+passed\s+(\d+)/\1\s+8\.00 / 8", out), out


def test_status_and_check_read_a_notebook_as_grading_reads_it(capsys, tmp_path):
    """`--impl hw.ipynb`: the notebook's code cells in order in this fresh process, as grade.py runs them, with
    what grading drops said first. check() inside the notebook runs on the kernel's state instead, where a cell
    run out of order or a plot's library hides what grading will do."""
    import nbformat

    from attnlab.instructor.notebooks import notebook_for, sources_of, text_of

    course = load_course(paths.SPEC_DIR, "attention")
    notebook = notebook_for(course, "en", sources_of(paths.REFERENCE_DIR, course))
    softmax = next(i for i, c in enumerate(notebook.cells) if "def run_softmax(" in c.source)
    notebook.cells.insert(softmax + 1, nbformat.v4.new_code_cell(
        "import matplotlib.pyplot as plt\nplt.imshow(run_softmax(torch.ones(2, 2), dim=-1))"))
    notebook.cells[softmax + 1]["id"] = "plot"
    (tmp_path / "hw.ipynb").write_text(text_of(notebook), "utf-8")
    assert main(["status", "--impl", str(tmp_path / "hw.ipynb")]) == 0
    out = capsys.readouterr().out
    assert "hw.ipynb, read as grading reads it" in out and f"visible checks of {tmp_path / 'hw.ipynb'}" in out
    assert f"cell {softmax + 2}, line 1: `import matplotlib.pyplot as plt` is not run at grading" in out
    assert re.search(r"softmax +passed", out) and "Run `attnlab submit --notebook hw.ipynb`" in out
    assert main(["check", "softmax", "--impl", str(tmp_path / "hw.ipynb")]) == 0
    # a cell that calls what a later cell defines ran in the student's kernel (cells run out of order)
    notebook.cells.insert(softmax, nbformat.v4.new_code_cell("print(run_softmax(torch.ones(2), dim=0))"))
    notebook.cells[softmax]["id"] = "early"
    (tmp_path / "hw.ipynb").write_text(text_of(notebook), "utf-8")
    capsys.readouterr()
    main(["status", "--impl", str(tmp_path / "hw.ipynb")])
    assert f"NameError: name 'run_softmax' is not defined (at cell {softmax + 1}, line 1)" in capsys.readouterr().out
    assert main(["status", "--impl", str(tmp_path / "missing.ipynb")]) == 2


def test_submit_says_nothing_of_parameters_where_they_are_the_stubs():
    """Every framework's reference, and every correct solution in the styles students write, keeps the stub's
    names: the warning (attnlab.student.signatures) has no false alarm on them."""
    from attnlab.student import signatures

    course = load_course(paths.SPEC_DIR)
    for name in frameworks.NAMES:
        adapter = frameworks.adapter(name)
        assert signatures.renamed(paths.reference_dir(adapter), paths.template_dir(adapter), course.all_coded) == []
    acceptance = sorted((paths.ROOT / "tests" / "acceptance").glob("*/"))
    assert acceptance
    for package in acceptance:
        found = signatures.renamed(package, paths.TEMPLATE_DIR, course.all_coded)
        assert found == [], (package.name, found)
