"""A notebook read as a package (attnlab.core.notebook_source): code cells in order, IPython syntax and check()
dropped with notes, the quiz's %%writefile kept as data, errors naming the cell, bad notebooks refused."""

import json

import nbformat
import pytest

from attnlab.core.impl import describe_exception, find_function, load_package
from attnlab.core.notebook_source import MAX_CELLS, NotebookError, as_package, load, read_code
from attnlab.core.outcomes import SubmissionError

SOFTMAX = '''def run_softmax(in_features, dim):
    exps = (in_features - in_features.amax(dim=dim, keepdim=True)).exp()
    return exps / exps.sum(dim=dim, keepdim=True)'''


def notebook(*cells: str, markdown_first: bool = True) -> bytes:
    made = [nbformat.v4.new_markdown_cell("# A notebook")] if markdown_first else []
    made += [nbformat.v4.new_code_cell(c) for c in cells]
    return nbformat.writes(nbformat.v4.new_notebook(cells=made)).encode()


def package_of(tmp_path, data: bytes, name: str = "hw.ipynb"):
    (tmp_path / name).write_bytes(data)
    code = as_package(tmp_path / name, tmp_path / "pkg", frozenset({"quiz.yaml"}))
    return code, tmp_path / "pkg"


def test_code_cells_become_the_package_and_ipython_syntax_and_checks_are_dropped_with_notes(tmp_path):
    cells = (
        "%pip install -q einops\n!ls\nimport torch",  # cell 2 (cell 1: markdown)
        "from attnlab.student.notebook import check, hint\nimport attnlab",  # cell 3
        SOFTMAX,  # cell 4
        'r = check("softmax", run_softmax)\ncheck(\n    "softmax",\n    run_softmax,\n)\nhint("softmax")',  # cell 5
        "if True:\n    files = !ls\nscale = 2.0",  # cell 6
        "%%bash\necho hi",  # cell 7
        "%%writefile attention/quiz.yaml\nanswers:\n  q1: 64\n",  # cell 8
        'def helper():\n    """100% sure!\n!important"""\n    return check("softmax", None)',  # cell 9
    )
    code, package = package_of(tmp_path, notebook(*cells))
    assert code.functions == {"run_softmax": 4}
    assert code.data_files == {"quiz.yaml": "answers:\n  q1: 64\n"} and (package / "quiz.yaml").is_file()
    assert [n.text("en") for n in code.notes] == [
        "cell 2, line 1: `%pip install -q einops` is not run at grading (IPython magics and shell escapes are dropped)",
        "cell 2, line 2: `!ls` is not run at grading (IPython magics and shell escapes are dropped)",
        "cell 6, line 2: `files = !ls` is not run at grading (IPython magics and shell escapes are dropped)",
        "cell 7: the `%%bash` cell is not run at grading (cell magics are dropped)"]
    for cell in code.cells:  # line for line: a traceback's line is the cell's line
        assert cell.source.count("\n") == cells[cell.number - 2].count("\n")
    assert [c.number for c in code.cells] == [2, 3, 4, 5, 6, 9]  # markdown and cell magics are not code
    assert "100% sure!\n!important" in code.cells[-1].source  # valid Python: its strings are left alone
    loaded = load_package(package, ("torch",))
    import torch

    x = torch.randn(2, 3)
    assert torch.allclose(find_function(loaded, "softmax", "run_softmax")(in_features=x, dim=-1), x.softmax(-1))
    assert loaded.scale == 2.0 and loaded.helper() is None  # check() inside a function is a no-op at grading


def test_an_error_in_a_cell_names_the_cell_and_line(tmp_path):
    code, package = package_of(tmp_path, notebook(SOFTMAX, "x = 1\ny = undefined_name + x"))
    with pytest.raises(SubmissionError) as raised:
        load_package(package, ("torch",))
    assert "NameError: name 'undefined_name' is not defined (at cell 3, line 2)" in raised.value.text("en")
    assert "（位于第 3 个单元格第 2 行）" in raised.value.text("zh")


def test_a_function_raising_names_its_cell_and_a_syntax_error_too(tmp_path):
    broken = SOFTMAX.replace("in_features.amax", "in_feature.amax")
    _, package = package_of(tmp_path, notebook(broken, markdown_first=False))
    fn = find_function(load_package(package, ("torch",)), "softmax", "run_softmax")
    import torch

    with pytest.raises(NameError) as raised:
        fn(in_features=torch.zeros(2), dim=-1)
    assert describe_exception(raised.value).text("en").endswith("(at cell 1, line 2)")
    (tmp_path / "syntax").mkdir()
    _, package = package_of(tmp_path / "syntax", notebook(SOFTMAX, "def oops(:\n    pass"))
    with pytest.raises(SubmissionError, match=r"SyntaxError: .* \(at cell 3, line 1\)"):
        load_package(package, ("torch",))


def old_format() -> bytes:
    return json.dumps({"nbformat": 3, "nbformat_minor": 0, "worksheets": [{"cells": []}], "metadata": {}}).encode()


@pytest.mark.parametrize(("data", "problem"), [
    (b'{"cells": [', "hw.ipynb is not a notebook: its JSON is invalid (Expecting value at line 1, column 12)"),
    (b"\xff\xfe", "hw.ipynb is not a notebook: its JSON is invalid (not UTF-8 at byte 0)"),
    (b'{"cells": []}', "hw.ipynb is JSON but not a Jupyter notebook"),
    (old_format(), "hw.ipynb is in nbformat 3, older than the nbformat 4"),
    (notebook(*(["x = 1"] * (MAX_CELLS + 1))), f"hw.ipynb has {MAX_CELLS + 2} cells; a notebook may have at most 2000"),
    (notebook("import torch", "x = torch.zeros(3)"), "hw.ipynb defines no run_* function in any of its 2 code cells"),
])
def test_bad_notebooks_are_refused_naming_the_file_and_the_problem(data, problem):
    with pytest.raises(NotebookError) as raised:
        read_code(load(data, "hw.ipynb"), "hw.ipynb")
    assert problem in str(raised.value)


def test_a_huge_notebook_is_refused_before_it_is_read(tmp_path, monkeypatch):
    from attnlab.core import notebook_source

    monkeypatch.setattr(notebook_source, "MAX_NOTEBOOK_BYTES", 1000)  # the same check as at 50 MB
    big = notebook(SOFTMAX)
    with pytest.raises(NotebookError, match="hw.ipynb is 0 MB, over the 0 MB a notebook may be: clear its outputs"):
        package_of(tmp_path, big + b" " * 1000)


def test_attnlab_submit_zips_a_notebook_grading_can_read_and_refuses_one_it_cannot(tmp_path):
    import zipfile

    from attnlab.student.submit import SubmitError, build_notebook_submission

    (tmp_path / "hw.ipynb").write_bytes(notebook(SOFTMAX))
    made = build_notebook_submission(tmp_path / "hw.ipynb", out_dir=tmp_path, student="wei")
    with zipfile.ZipFile(made.path) as zf:
        assert sorted(zf.namelist()) == ["MANIFEST.json", "hw.ipynb"]
        manifest = json.loads(zf.read("MANIFEST.json"))
    assert made.path.name == "wei-submission.zip" and manifest["notebook"] == "hw.ipynb"
    assert manifest["files"]["hw.ipynb"]["bytes"] == (tmp_path / "hw.ipynb").stat().st_size
    (tmp_path / "prose.ipynb").write_bytes(notebook("print(1)"))
    with pytest.raises(SubmitError) as refused:
        build_notebook_submission(tmp_path / "prose.ipynb", out_dir=tmp_path, student="wei")
    assert refused.value.text("en") == ("grading could not read this notebook: prose.ipynb defines no run_* function "
                                        "in any of its 1 code cells: hand in the notebook you worked in, with the "
                                        "exercise cells")


def test_plots_and_widgets_of_libraries_the_course_does_not_offer_are_dropped_with_what_uses_them(tmp_path):
    """A notebook's plots ran in the student's kernel; at grading, matplotlib, IPython and google.colab are not
    offered, and importing them failed the whole notebook (6 of 100 for a correct one that drew its attention
    weights). Their imports are dropped, then every top-level statement that uses what they would have bound,
    cell after cell; the rest runs, and the package imports under the course's import rules."""
    cells = (
        "from google.colab import drive\ndrive.mount('/content/drive')",  # cell 2
        "import torch, matplotlib.pyplot as plt\nimport math\n%matplotlib inline",  # cell 3
        SOFTMAX,  # cell 4
        "x = torch.randn(4, 4)\nw = run_softmax(x, dim=-1)\nfig, ax = plt.subplots()\nax.imshow(w)\nprint(w.sum())",
        "def show(m):\n    plt.imshow(m)\n\nshow(w); y = 1\nfor i in range(2):\n    show(w)\nz = y + 1",  # cell 6
        "from IPython.display import Markdown\ndisplay(Markdown('**done**'))\ndisplay(w)\nrows = w.shape[0]",
        "get_ipython().run_line_magic('load_ext', 'autoreload')\ny = 2\nboth = y + rows",  # cell 8
        "try:\n    import seaborn as sns\nexcept ImportError:\n    sns = None\nscale = math.sqrt(4.0)",  # cell 9
        "def run_plot_free(m):\n    return m.sum()",  # cell 10
    )
    (tmp_path / "hw.ipynb").write_bytes(notebook(*cells))
    code = as_package(tmp_path / "hw.ipynb", tmp_path / "pkg", frozenset(), libraries=("torch", "numpy"))
    assert [n.text("en") for n in code.notes] == [
        "cell 2, line 1: `from google.colab import drive` is not run at grading (google is not offered in this "
        "course), nor what uses what it imports",
        "cell 2, line 2: `drive.mount('/content/drive')` is not run at grading (it uses google, which is not run at "
        "grading)",
        "cell 3, line 3: `%matplotlib inline` is not run at grading (IPython magics and shell escapes are dropped)",
        "cell 3, line 1: `import torch, matplotlib.pyplot as plt` runs at grading as `import torch` (matplotlib is "
        "not offered in this course), and what uses matplotlib is not run",
        *(f"cell {c}, line {n}: `{line}` is not run at grading (it uses matplotlib, which is not run at grading)"
          for c, n, line in ((5, 3, "fig, ax = plt.subplots()"), (5, 4, "ax.imshow(w)"), (6, 4, "show(w)"),
                             (6, 5, "for i in range(2):"))),
        "cell 7, line 1: `from IPython.display import Markdown` is not run at grading (IPython is not offered in "
        "this course), nor what uses what it imports",
        "cell 7, line 2: `display(Markdown('**done**'))` is not run at grading (it uses IPython, which is not run "
        "at grading)",
        "cell 8, line 1: `get_ipython().run_line_magic('load_ext', 'autoreload')` is not run at grading (it uses "
        "get_ipython, which is not run at grading)",
        "cell 9, line 1: `try:` is not run at grading (seaborn is not offered in this course), nor what uses what it "
        "imports"]
    for cell in code.cells:  # line for line still
        assert cell.source.count("\n") == cells[cell.number - 2].count("\n")
    loaded = load_package(tmp_path / "pkg", ("torch", "numpy"))  # the course's rules: matplotlib would fail here
    assert tuple(loaded.w.shape) == (4, 4) and loaded.rows == 4 and loaded.both == 6 and loaded.scale == 2.0
    assert not hasattr(loaded, "plt") and not hasattr(loaded, "fig")
    assert loaded.z == 2  # `show(w); y = 1`: the rest of the line runs
    assert loaded.show is not None and loaded.run_plot_free(loaded.w).item() > 0  # functions are kept
    assert code.functions == {"run_softmax": 4, "run_plot_free": 10}
    # without the course's libraries (an older caller) nothing is dropped for its imports: importing fails
    plain = read_code(load(notebook(*cells), "hw.ipynb"), "hw.ipynb")
    assert not [n for n in plain.notes if n.key != "notebook.dropped"]


def test_attnlab_submit_says_what_grading_will_not_run(tmp_path):
    from attnlab.student.submit import build_notebook_submission

    (tmp_path / "hw.ipynb").write_bytes(notebook("import matplotlib.pyplot as plt", SOFTMAX, "plt.plot([1, 2])"))
    made = build_notebook_submission(tmp_path / "hw.ipynb", out_dir=tmp_path, student="wei",
                                     libraries=("torch", "numpy"))
    assert [n.text("zh") for n in made.notes] == [
        "第 2 个单元格第 1 行：`import matplotlib.pyplot as plt` 在评分时不会运行（本课程不提供 matplotlib），"
        "用到它所导入内容的语句也不会运行",
        "第 4 个单元格第 1 行：`plt.plot([1, 2])` 在评分时不会运行（它用到了评分时不会运行的 matplotlib）"]


def test_what_ipython_runs_runs_and_what_it_would_have_bound_is_unbound(tmp_path):
    """%%time and %%capture run the cell's code once in the notebook's namespace, and `%time <statement>` runs
    the statement: dropping them lost what they defined, and a later cell using it failed the whole notebook.
    `files = !ls` and `%%capture out` bind what grading never has: what uses them is dropped, with notes."""
    cells = (
        "%%time\nimport torch\nx = torch.ones(3)",  # cell 2
        SOFTMAX,  # cell 3
        "%time w = run_softmax(x, dim=-1)\n%timeit run_softmax(x, dim=-1)",  # cell 4
        "%%capture printed --no-stderr\nprint(w)",  # cell 5
        "files = !ls\nif True:\n    listing = %sx ls\nprinted.show()\nfirst = files[0]\ncount = len(listing)\nok = 1",
        "%%timeit\nslow = run_softmax(x, dim=-1)",  # cell 7: timeit keeps nothing
        "total = float(w.sum()) + ok",  # cell 8
    )
    (tmp_path / "hw.ipynb").write_bytes(notebook(*cells))
    code = as_package(tmp_path / "hw.ipynb", tmp_path / "pkg", frozenset(), libraries=("torch",))
    dropped = "is not run at grading (IPython magics and shell escapes are dropped)"
    assert [n.text("en") for n in code.notes] == [
        f"cell 4, line 2: `%timeit run_softmax(x, dim=-1)` {dropped}",
        f"cell 6, line 1: `files = !ls` {dropped}",
        f"cell 6, line 3: `listing = %sx ls` {dropped}",
        "cell 6, line 4: `printed.show()` is not run at grading (it uses %%capture printed --no-stderr, which is "
        "not run at grading)",
        "cell 6, line 5: `first = files[0]` is not run at grading (it uses !ls, which is not run at grading)",
        "cell 6, line 6: `count = len(listing)` is not run at grading (it uses %sx, which is not run at grading)",
        "cell 7: the `%%timeit` cell is not run at grading (cell magics are dropped)"]
    loaded = load_package(tmp_path / "pkg", ("torch",))
    assert loaded.x.tolist() == [1.0, 1.0, 1.0] and loaded.total == 2.0 and not hasattr(loaded, "slow")


def test_what_shares_a_line_with_a_dropped_import_still_runs(tmp_path):
    (tmp_path / "hw.ipynb").write_bytes(notebook("from matplotlib import pyplot as plt; import torch; n = 3",
                                                 SOFTMAX, "x = torch.ones(n); plt.plot(x); m = 2"))
    code = as_package(tmp_path / "hw.ipynb", tmp_path / "pkg", frozenset(), libraries=("torch",))
    assert [c.source for c in code.cells[::2]] == [
        "import torch; n = 3  # the rest is not run at grading: matplotlib",
        "x = torch.ones(n); m = 2  # the rest is not run at grading: matplotlib"]
    assert [n.values["code"] for n in code.notes] == ["from matplotlib import pyplot as plt", "plt.plot(x)"]
    loaded = load_package(tmp_path / "pkg", ("torch",))
    assert loaded.x.tolist() == [1.0, 1.0, 1.0] and loaded.m == 2


def test_a_function_importing_a_plot_library_inside_is_kept_and_a_decorator_of_one_is_dropped(tmp_path):
    """A run_* whose body imports matplotlib (a debugging plot) must stay, to be graded and fail where it does,
    not vanish as "not implemented"; a helper doing so is kept and its top-level calls dropped. A def whose
    decorator comes from a dropped import (ipywidgets' @interact) would fail the import itself: it goes."""
    cells = (SOFTMAX.replace("def run_softmax(in_features, dim):",
                             "def run_softmax(in_features, dim):\n    import matplotlib  # noqa"),
             "def show(m):\n    import matplotlib.pyplot as plt\n    plt.imshow(m)\n\nshow(1)\nkept = 1",
             "from ipywidgets import interact\n@interact(x=(0, 3))\ndef explore(x):\n    return x\nafter = 2")
    (tmp_path / "hw.ipynb").write_bytes(notebook(*cells))
    code = as_package(tmp_path / "hw.ipynb", tmp_path / "pkg", frozenset(), libraries=("torch",))
    assert [n.values["code"] for n in code.notes] == ["show(1)", "from ipywidgets import interact",
                                                      "@interact(x=(0, 3))"]
    loaded = load_package(tmp_path / "pkg", ("torch",))
    assert callable(loaded.run_softmax) and callable(loaded.show) and loaded.kept == 1 and loaded.after == 2
    assert not hasattr(loaded, "explore")
    assert code.functions == {"run_softmax": 2}


def test_modules_a_notebook_writes_are_its_packages_and_its_imports_of_them_find_them(tmp_path):
    """Colab's way to make modules: `%%writefile softmax.py`, then `from softmax import ...` in a later cell and in
    another written module, as Jupyter runs them (the files land in the notebook's folder, on sys.path)."""
    from attnlab.core import frameworks, paths
    from attnlab.core.impl import InProcessImpl
    from attnlab.core.scoring import grade_exercise, make_context
    from attnlab.core.spec_load import load_course

    attention = (paths.REFERENCE_DIR / "attention.py").read_text(encoding="utf-8")
    assert "from .softmax import run_softmax" in attention
    cells = ["%%writefile softmax.py\n" + (paths.REFERENCE_DIR / "softmax.py").read_text(encoding="utf-8"),
             "%%writefile attention.py\n" + attention.replace("from .softmax import", "from softmax import"),
             "import torch, softmax as sm\nfrom attention import run_scaled_dot_product_attention as sdpa\n"
             "print(sdpa(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2, 3)), sm.run_softmax(torch.ones(3), -1))",
             "%%writefile -a softmax.py\n\ndef run_helper():\n    return 2\n",
             "%%writefile hw/notes.py\nx = 1"]
    code, package = package_of(tmp_path, notebook(*cells))
    assert sorted(code.modules) == ["attention.py", "softmax.py"] and code.functions["run_softmax"] == 5
    assert code.functions["run_scaled_dot_product_attention"] == 3
    assert (package / "attention.py").read_text(encoding="utf-8").count("from .softmax import run_softmax") == 1
    assert (package / "softmax.py").read_text(encoding="utf-8").endswith("def run_helper():\n    return 2\n")
    notes = [n.text("en") for n in code.notes]
    assert "cell 2: `%%writefile softmax.py` makes softmax.py one of your package's modules" in notes[0]
    assert any("cell 6" in n and "hw/notes.py" in n for n in notes)  # not a module of the notebook's folder
    summary = code.summary()
    assert [c["cell"] for c in summary["cells"]] == [3, 4, 5] and summary["cells"][0]["source"].startswith(
        "%%writefile attention.py\n")  # the last write of softmax.py (cell 5) shows whole
    course = load_course(paths.SPEC_DIR)
    impl = InProcessImpl(package, adapter=frameworks.adapter("torch"), libraries=course.libraries)
    for exercise in ("softmax", "scaled_dot_product_attention", "causal_attention"):
        result = grade_exercise(make_context(course.find(exercise), impl))
        assert result.status == "passed", (exercise, result.feedback)
