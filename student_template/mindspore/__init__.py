"""The reference solutions in MindSpore (seed 001's framework): the same functions, arguments and docstrings as
reference/, on mindspore.Tensor, in seed 001's idiom (nn.Dense with the given weights, ops.matmul,
ops.masked_fill, nn.Softmax(axis=-1)). student_template/mindspore/ is generated from these files."""
