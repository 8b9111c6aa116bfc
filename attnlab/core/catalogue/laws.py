"""The generic laws' sentences (an exercise's own laws bring theirs in spec/<id>.py)."""

MESSAGES: dict[str, dict[str, str]] = {
    "law_detail": {"en": "{what}: {detail}", "zh": "{what}：{detail}"},
    "law_causality": {"en": "changing tokens {first}..{last} (the future) changed outputs at positions 0..{upto}",
                      "zh": "改变第 {first}..{last} 个词元（未来）后，位置 0..{upto} 的输出改变了"},
    "law_permutation_invariant": {"en": "permuting {names} by {perm} did not leave the output unchanged",
                                  "zh": "按 {perm} 置换 {names} 后，输出没有保持不变"},
    "law_permutation_equivariant": {"en": "permuting {names} by {perm} did not permute the output the same way",
                                    "zh": "按 {perm} 置换 {names} 后，输出没有以相同方式置换"},
    "law_gradient": {"en": "the gradient with respect to {name}", "zh": "对 {name} 的梯度"},
    "law_gradient_unreached": {
        "en": "no gradient reaches {name}: the output does not depend on it through autograd",
        "zh": "没有梯度传到 {name}：输出并未通过自动求导依赖于它"},
    "hint_gradient_unreached": {
        "en": "gradients must flow from the output back to the arguments: a tensor copied into a module with "
              ".data, load_state_dict or nn.Parameter(...) is a new leaf and receives no gradient, and "
              ".detach(), torch.no_grad() or a NumPy round trip cut the graph; computing with the arguments "
              "themselves (F.linear(x, W), x @ W.T) keeps it",
        "zh": "梯度必须能从输出传回参数：用 .data、load_state_dict 或 nn.Parameter(...) 复制进模块的张量是新的叶子节点，"
              "收不到梯度；.detach()、torch.no_grad() 或经由 NumPy 转换都会切断计算图；直接用参数本身计算"
              "（F.linear(x, W)、x @ W.T）才能保留"},
    "law_gradient_no_reference": {
        "en": "not run: no reference gradients for case {case} here (neither reference/ nor its fixture)",
        "zh": "未运行：此处没有用例 {case} 的参考梯度（既没有 reference/，也没有其 fixture）"},
}
