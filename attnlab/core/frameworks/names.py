"""The frameworks students may write in, by name: what course.yaml and --framework accept. Data only, so that
spec loading knows the names without reaching the adapters (attnlab.core.frameworks looks them up)."""

# every framework and its adapter's module; the first is the default (course.yaml without `framework:`)
MODULES = {"torch": "for_torch", "numpy": "for_numpy", "jax": "for_jax", "mindspore": "for_mindspore"}
NAMES = tuple(MODULES)
DEFAULT = NAMES[0]
OTHERS = NAMES[1:]  # a spec gives these their own words and tolerances; their files live in subfolders

# a spec whose `forbidden:` lists this wants the result from @triton.jit kernels (attnlab.core.frameworks.kernels):
# Triton kernels take torch tensors, so such an exercise is torch's alone and "not applicable" elsewhere
KERNELS_ONLY = "triton.kernels_only"
TRITON_LIBRARY = "triton"  # the package such an exercise needs (course.yaml lists it under its assignment)
