"""`attnlab viz EXERCISE`: the student's attention weights beside the reference's, as a PNG heatmap.

Weights are read off the student's own functions by construction, never from their internals:
- scaled_dot_product_attention: V = identity (keys × keys), so the output IS the weight matrix;
- self_attention / causal_attention: in_features = identity (d_in = seq) and v_proj_weight = identity;
- simple_self_attention: output = weights @ X with X square and invertible, so weights = output @ X⁻¹;
- multi-head exercises: every head's value projection picks the identity, the output projection is the
  identity, so the output's columns are the heads' weight matrices side by side;
- causal_mask: the mask itself; rope: the scores <RoPE(q, m), RoPE(k, n)> over positions m, n for one
  fixed q and k, which depend only on m − n (the relative-position pattern).
The reference side is computed live where reference/ exists, else read from fixtures/_viz/<id>.npz, made by
`python -m harness.generate viz` (drift-checked with `--check`).
"""

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from harness import fixtures, paths
from harness.grading import load_reference
from harness.impl import Implementation
from harness.outcomes import Outcome
from harness.spec import ExerciseSpec, Text

VIZ_DIR = paths.FIXTURES_DIR / "_viz"
SEQ, HEADS, ROPE_LEN, D_K = 8, 2, 16, 16
F64 = torch.float64


def _randn(seed: int, *shape: int, scale: float = 1.2) -> torch.Tensor:
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=F64) * scale


def _eye(n: int) -> torch.Tensor:
    return torch.eye(n, dtype=F64)


def _heads(out: torch.Tensor, heads: int = 1) -> np.ndarray:
    """(seq, heads·seq) columns → (heads, seq, seq) weight matrices (float64 numpy)."""
    out = out.detach().to("cpu", F64)
    if tuple(out.shape) != (SEQ, heads * SEQ):
        raise ValueError(f"the output has shape {tuple(out.shape)}, expected {(SEQ, heads * SEQ)}")
    return out.reshape(SEQ, heads, SEQ).permute(1, 0, 2).numpy()


def sdpa(call: Callable) -> np.ndarray:
    mask = torch.rand(SEQ, SEQ, generator=torch.Generator().manual_seed(3)) < 0.6
    mask[:, 0] = True  # every query may attend to at least one key
    return _heads(call(Q=_randn(1, SEQ, 4), K=_randn(2, SEQ, 4), V=_eye(SEQ), mask=mask))


def simple(call: Callable) -> np.ndarray:
    inputs = _randn(4, SEQ, SEQ, scale=0.5)
    return _heads(call(inputs=inputs).to(F64) @ torch.linalg.inv(inputs))


def projected(call: Callable) -> np.ndarray:
    return _heads(call(d_in=SEQ, d_out=SEQ, q_proj_weight=_randn(5, SEQ, SEQ),
                       k_proj_weight=_randn(6, SEQ, SEQ), v_proj_weight=_eye(SEQ), in_features=_eye(SEQ)))


def causal_mask(call: Callable) -> np.ndarray:
    return _heads(call(seq_len=SEQ).to(F64))


def rope(call: Callable) -> np.ndarray:
    positions = torch.arange(ROPE_LEN)
    q, k = (_randn(seed, D_K, scale=1.0).expand(ROPE_LEN, D_K).clone() for seed in (7, 8))
    rotated = [call(d_k=D_K, theta=10000.0, max_seq_len=ROPE_LEN, in_query_or_key=x,
                    token_positions=positions) for x in (q, k)]
    scores = rotated[0].to(F64) @ rotated[1].to(F64).T  # (m, n): <RoPE(q, m), RoPE(k, n)>
    return scores.detach().cpu().numpy()[None]


def split_heads(call: Callable, **extra) -> np.ndarray:
    d_model = HEADS * SEQ
    out = call(d_model=d_model, num_heads=HEADS, q_proj_weight=_randn(9, d_model, SEQ),
               k_proj_weight=_randn(10, d_model, SEQ), v_proj_weight=_eye(SEQ).repeat(HEADS, 1),
               o_proj_weight=_eye(d_model), in_features=_eye(SEQ), **extra)
    return _heads(out, HEADS)


def split_heads_rope(call: Callable) -> np.ndarray:
    return split_heads(call, max_seq_len=64, theta=10000.0, token_positions=torch.arange(SEQ))


def wrapper(call: Callable) -> np.ndarray:
    return _heads(call(d_in=SEQ, d_out=SEQ, num_heads=HEADS, q_proj_weights=_randn(11, HEADS, SEQ, SEQ),
                       k_proj_weights=_randn(12, HEADS, SEQ, SEQ),
                       v_proj_weights=_eye(SEQ).repeat(HEADS, 1, 1), in_features=_eye(SEQ)), HEADS)


def gpt2(call: Callable) -> np.ndarray:
    n_embd = HEADS * SEQ
    pick = torch.cat([_eye(SEQ), torch.zeros(SEQ, n_embd - SEQ, dtype=F64)], dim=1)  # (SEQ, n_embd)
    c_attn = torch.cat([_randn(13, n_embd, n_embd), _randn(14, n_embd, n_embd), pick.repeat(HEADS, 1)])
    zeros = torch.zeros(3 * n_embd, dtype=F64)
    return _heads(call(n_embd=n_embd, n_head=HEADS, c_attn_weight=c_attn, c_attn_bias=zeros,
                       c_proj_weight=_eye(n_embd), c_proj_bias=zeros[:n_embd], in_features=pick), HEADS)


@dataclass(frozen=True)
class Picture:
    compute: Callable[[Callable], np.ndarray]  # call(**kwargs) -> Tensor  ->  (heads, rows, cols)
    kind: str  # "weights" (in [0, 1]) | "mask" | "scores" (signed)
    caption: Text


_V_IS_I = Text(en="V = identity, so the output is the weight matrix",
               zh="V 取单位矩阵，输出即为注意力权重矩阵")
_HEADS_I = Text(en="each head's V and the output projection are identities: one weight matrix per head",
                zh="每个头的 V 与输出投影均为单位矩阵：每个头一张权重图")
PICTURES = {
    "simple_self_attention": Picture(simple, "weights", Text(en="weights = output · X⁻¹ (X square)",
                                                             zh="权重 = 输出 · X⁻¹（X 为可逆方阵）")),
    "self_attention": Picture(projected, "weights", _V_IS_I),
    "causal_mask": Picture(causal_mask, "mask", Text(en="True (1) = may attend", zh="True（1）= 可以关注")),
    "causal_attention": Picture(projected, "weights", _V_IS_I),
    "scaled_dot_product_attention": Picture(sdpa, "weights", Text(en="V = identity, random mask",
                                                                  zh="V 取单位矩阵，随机掩码")),
    "multihead_attention_wrapper": Picture(wrapper, "weights", _HEADS_I),
    "multihead_self_attention": Picture(split_heads, "weights", _HEADS_I),
    "gpt2_causal_self_attention": Picture(gpt2, "weights", _HEADS_I),
    "rope": Picture(rope, "scores", Text(en="<RoPE(q, m), RoPE(k, n)> for one q and k: constant along "
                                            "diagonals",
                                         zh="固定 q、k 时的 <RoPE(q, m), RoPE(k, n)>：沿对角线不变")),
    "multihead_self_attention_with_rope": Picture(split_heads_rope, "weights", _HEADS_I),
}


def unsupported(exercise_id: str) -> str | None:
    """None if `exercise_id` can be drawn, else the comma-separated ids that can."""
    return None if exercise_id in PICTURES else ", ".join(PICTURES)


def student_weights(exercise: ExerciseSpec, impl: Implementation) -> tuple[np.ndarray | None, str]:
    """The student's picture, or (None, what went wrong) — a crash or a wrong shape is shown, not raised."""
    def call(**kwargs):
        return impl.call(exercise=exercise.id, module=exercise.module, function=exercise.function,
                         kwargs=kwargs, forbidden_calls=())
    try:
        with torch.no_grad():
            return PICTURES[exercise.id].compute(call), ""
    except Outcome as outcome:
        return None, str(outcome)
    except (ValueError, RuntimeError, IndexError, TypeError) as exc:  # e.g. a wrong shape: no weights to read
        return None, f"{type(exc).__name__}: {exc}"


def reference_weights(exercise: ExerciseSpec) -> np.ndarray | None:
    """Live from reference/ when it is here (the repo), else the saved fixtures/_viz/<id>.npz (a handout)."""
    reference = load_reference()
    if reference is not None:
        with torch.no_grad():
            return PICTURES[exercise.id].compute(getattr(reference, exercise.function))
    path = VIZ_DIR / f"{exercise.id}.npz"
    return fixtures.read(path)["weights"] if path.is_file() else None


FIG_TEXT = {"yours": {"en": "yours", "zh": "你的实现"}, "reference": {"en": "reference", "zh": "参考实现"},
            "head": {"en": "head", "zh": "头"}, "key": {"en": "key position", "zh": "键位置"},
            "query": {"en": "query position", "zh": "查询位置"}, "diff": {"en": "max |diff|", "zh": "最大差"},
            "missing": {"en": "no reference picture here", "zh": "此处没有参考图"}}
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Source Han Sans SC", "WenQuanYi Zen Hei", "SimHei",
             "Microsoft YaHei", "PingFang SC")


def _cjk_font() -> str | None:
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FONTS if name in names), None)


def _panel(ax, data: np.ndarray | None, kind: str, title: str, problem: str):
    ax.set_title(title, fontsize=10)
    if data is None:
        ax.text(0.5, 0.5, textwrap.fill(problem, 34), ha="center", va="center", fontsize=8, wrap=True)
        ax.set_axis_off()
        return None
    limit = float(np.abs(data).max()) or 1.0
    style = {"weights": ("viridis", 0.0, 1.0), "mask": ("Greys", 0.0, 1.0),
             "scores": ("coolwarm", -limit, limit)}
    cmap, low, high = style[kind]
    return ax.imshow(data, cmap=cmap, vmin=low, vmax=high)


def figure(exercise: ExerciseSpec, yours: np.ndarray | None, problem: str, reference: np.ndarray | None,
           *, lang: str):
    """Two rows (yours, reference) of one panel per head."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    word = {key: value.get(lang, value["en"]) for key, value in FIG_TEXT.items()}
    picture = PICTURES[exercise.id]
    shown = next((a for a in (reference, yours) if a is not None), np.zeros((1, 1, 1)))
    heads = shown.shape[0]
    fig = Figure(figsize=(3.4 * heads + 1.2, 7.0), layout="constrained")
    axes = fig.subplots(2, heads, squeeze=False)
    if yours is not None and reference is not None and yours.shape == reference.shape:
        problem = f"{word['diff']} = {np.abs(yours - reference).max():.3g}"
    elif yours is not None and reference is not None:
        problem, yours = f"shape {yours.shape} != {reference.shape}", None
    for row, (label, data) in enumerate(((word["yours"], yours), (word["reference"], reference))):
        for h in range(heads):
            note = f"\n{problem}" if row == 0 and data is not None else ""
            title = label + (f" · {word['head']} {h}" if heads > 1 else "") + note
            image = _panel(axes[row][h], None if data is None else data[h], picture.kind, title,
                           problem if data is not None or row == 0 else word["missing"])
            if image is not None:
                axes[row][h].set_xlabel(word["key"], fontsize=8)
                axes[row][h].set_ylabel(word["query"], fontsize=8)
                fig.colorbar(image, ax=axes[row][h], shrink=0.8)
    chars = int(fig.get_figwidth() * (6 if lang == "zh" else 11))  # what fits across the figure
    heading = [f"{exercise.id}: {exercise.title.get(lang)}", picture.caption.get(lang)]
    fig.suptitle("\n".join(textwrap.fill(line, chars) for line in heading), fontsize=11)
    return fig


def draw(exercise: ExerciseSpec, impl: Implementation, out: Path, *, lang: str) -> str:
    """Write the PNG to `out`; return what went wrong with the student's side ('' if nothing)."""
    from matplotlib import rc_context

    yours, problem = student_weights(exercise, impl)
    font = _cjk_font() if lang == "zh" else None
    lang = lang if font or lang != "zh" else "en"  # no CJK font: English labels rather than empty boxes
    rc = {"font.sans-serif": [font, "DejaVu Sans"]} if font else {}
    with rc_context(rc):
        fig = figure(exercise, yours, problem, reference_weights(exercise), lang=lang)
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=110)
    return "" if yours is not None else problem


def viz_arrays(reference) -> dict[str, np.ndarray]:
    """Exercise id -> the reference's picture (float64), for the files in fixtures/_viz/."""
    arrays = {}
    for exercise_id, picture in PICTURES.items():
        with torch.no_grad():
            arrays[exercise_id] = picture.compute(getattr(reference, f"run_{exercise_id}"))
    return arrays


def sync_viz(reference, *, check: bool, viz_dir: Path = VIZ_DIR) -> list[str]:
    """Write viz_dir/<id>.npz (or with check=True only list what is out of date)."""
    wanted = viz_arrays(reference)
    present = {p.stem for p in viz_dir.glob("*.npz")}
    drift = [i for i in wanted if i not in present or not np.allclose(
        fixtures.read(viz_dir / f"{i}.npz")["weights"], wanted[i], rtol=1e-12, atol=1e-12)]
    drift += [f"{i} (not generated: remove it)" for i in sorted(present - set(wanted))]
    if not check:
        for stale in present - set(wanted):
            (viz_dir / f"{stale}.npz").unlink()
        for exercise_id in drift:
            if exercise_id in wanted:
                fixtures.save(viz_dir / f"{exercise_id}.npz", {"weights": wanted[exercise_id]})
    return [f"fixtures/_viz/{d}" for d in drift]
