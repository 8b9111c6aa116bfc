"""What a call of student code can end with: imports, raises, forbidden calls, gradients."""

MESSAGES: dict[str, dict[str, str]] = {
    "forbidden_call": {"en": "{exercise}: the forbidden call {call} was used",
                       "zh": "{exercise}：使用了禁止的调用 {call}"},
    "hint_forbidden": {"en": "{call} computes what this exercise asks you to write, so it may not be used here, "
                             "directly or through a helper that calls it: write the computation from basic array "
                             "operations, as the function's docstring describes (your own functions from "
                             "earlier exercises are allowed)",
                       "zh": "{call} 计算的正是本题要你自己实现的内容，因此这里不能使用它（直接调用或经由调用它的"
                             "辅助函数都不行）：请按函数文档字符串的说明，用基本的数组运算写出计算（可以调用你在"
                             "前面练习中自己写的函数）"},
    # a Triton exercise (attnlab.core.frameworks.kernels): the result must come from @triton.jit kernels
    "kernel_torch_outside": {
        "en": "{exercise}: the launcher computed with torch ({op}) outside a Triton kernel: outside @triton.jit "
              "kernels only allocate, reshape and copy tensors; every number of the result must come from a kernel",
        "zh": "{exercise}：启动函数在 Triton 内核之外用 torch 做了计算（{op}）：内核之外只能分配、变形和复制张量；"
              "结果中的每个数都必须由 @triton.jit 内核算出"},
    "kernel_not_launched": {
        "en": "{exercise}: no @triton.jit kernel was launched (kernel[grid](...)): the result must be computed by a "
              "Triton kernel",
        "zh": "{exercise}：没有启动任何 @triton.jit 内核（kernel[grid](...)）：结果必须由 Triton 内核计算"},
    "kernel_bfloat16_interpreted": {
        "en": "not applicable on the CPU: Triton's interpreter computes bfloat16 on its bit patterns (it is only "
              "right for load, store and .to()); this case is graded where the kernel is compiled (--device cuda)",
        "zh": "在 CPU 上不适用：Triton 的解释器把 bfloat16 当作位模式来计算（只有 load、store 与 .to() 是正确的）；"
              "此用例在内核被编译的环境中评分（--device cuda）"},
    "kernel_out_of_bounds": {
        "en": "{exercise}: out-of-bounds access: mask your loads and stores ({detail})",
        "zh": "{exercise}：越界访问：请给 load 和 store 加掩码（{detail}）"},
    "not_a_package": {"en": "{path} is not a package: it has neither __init__.py nor any .py file (copy "
                            "student_template/)",
                      "zh": "{path} 不是一个包：其中既没有 __init__.py，也没有任何 .py 文件（请复制 student_template/）"},
    "import_failed": {"en": "importing {what} failed: {problem}", "zh": "导入 {what} 失败：{problem}"},
    "import_package_failed": {"en": "your package does not import: {problem}", "zh": "你的包无法导入：{problem}"},
    "hint_signature": {"en": "no check can run until the function takes the stub's parameters: keep the names (and the "
                             "defaults) the template gives them",
                       "zh": "函数的参数与模板一致之前，任何检查都无法运行：请保留模板给出的参数名（及默认值）"},
    "hint_import": {"en": "no check can run until your code imports: fix this error first, at the file and line shown",
                    "zh": "代码能够导入之后检查才能运行：请先修复这个错误（见所示的文件和行号）"},
    "hint_timeout": {"en": "your code ran out of CPU time (the limit is the same in pytest, attnlab check and grading): "
                           "look for a loop that never ends, or a Python loop over single elements where one array "
                           "operation would do",
                     "zh": "你的代码用完了 CPU 时间（pytest、attnlab check 与评分的限制相同）：检查是否有永不结束的循环，"
                           "或者在本可用一次数组运算完成的地方逐个元素地用 Python 循环"},
    "function_missing": {"en": "{function} is missing from {module}.py", "zh": "{module}.py 中缺少 {function}"},
    "exception": {"en": "{type}: {message}{where}", "zh": "{type}: {message}{where}"},
    "exception_at": {"en": " (at {file}:{line})", "zh": "（位于 {file}:{line}）"},
    "module_case": {
        "en": "there is no {expected}, but there is {found}{where}: Python's imports compare names exactly, on every "
              "system (Windows and macOS only hide the difference elsewhere), so rename it to {expected}",
        "zh": "没有 {expected}，但有 {found}{where}：Python 的导入在任何系统上都严格区分文件名的大小写（Windows 和 "
              "macOS 只是在别处不区分），请将其重命名为 {expected}"},
    "source_not_utf8": {
        "en": "SyntaxError: the file is not saved as UTF-8, the encoding Python reads source in: byte {byte}{where} "
              "is not UTF-8. Save it as UTF-8 in your editor, or name its encoding on its first line "
              "(# -*- coding: gbk -*-)",
        "zh": "SyntaxError：文件不是以 UTF-8 保存的，而 Python 按 UTF-8 读取源代码：字节 {byte}{where}不是 UTF-8。"
              "请在编辑器中将其另存为 UTF-8，或在文件第一行声明其编码（# -*- coding: gbk -*-）"},
    "source_utf16": {
        "en": "SyntaxError: the file{where} is saved as UTF-16 (Notepad's \"Unicode\", Windows PowerShell's `>`), and "
              "Python reads source only in UTF-8 or an encoding like it (a coding line cannot name UTF-16). Save it "
              "as UTF-8 in your editor",
        "zh": "SyntaxError：文件{where}是以 UTF-16 保存的（记事本的“Unicode”、Windows PowerShell 的 `>`），而 Python "
              "只能读取 UTF-8 或与之兼容的编码的源代码（编码声明行也不能指定 UTF-16）。请在编辑器中将其另存为 UTF-8"},
    "not_implemented": {"en": "{exercise}: not implemented yet ({detail})", "zh": "{exercise}：尚未实现（{detail}）"},
    "exercise_problem": {"en": "{exercise}: {problem}", "zh": "{exercise}：{problem}"},
    "parameters_renamed": {
        "en": "{exercise}: {function}({theirs}) takes no parameter named {missing}: the checks pass arguments by the "
              "stub's parameter names, so keep them, as the template's first line says",
        "zh": "{exercise}：{function}({theirs}) 没有名为 {missing} 的参数：检查按存根的参数名传参，请保留这些参数名"
              "（见模板第一行的说明）"},
    "parameters_added": {
        "en": "{exercise}: {function}({theirs}) also requires {required}, which the stub does not have and the "
              "checks do not pass: give it a default, or keep the stub's parameters",
        "zh": "{exercise}：{function}({theirs}) 还要求参数 {required}，存根中没有它，检查也不会传入：请给它一个默认值，"
              "或保留存根的参数"},
    "raised": {"en": "{exercise}: your function raised {problem}", "zh": "{exercise}：你的函数抛出了 {problem}"},
    "not_a_tensor": {"en": "{function} returned {got}, expected a {expected}",
                     "zh": "{function} 返回了 {got}，应返回 {expected}"},
    "hint_not_a_tensor": {"en": "{function} must return a {expected} (a tuple of them where the exercise returns "
                                "several): compute with {expected} operations throughout, or convert the result "
                                "before returning it",
                          "zh": "{function} 必须返回 {expected}（题目要求返回多个时，返回由它们组成的元组）：请全程用 "
                                "{expected} 的运算计算，或在返回前转换结果"},
    "hint_returned_none": {"en": "a Python function that ends without a `return` statement returns None: end "
                                 "{function} with `return` and its result (a helper it calls may need one too)",
                           "zh": "没有 `return` 语句就结束的 Python 函数返回 None：请在 {function} 末尾用 `return` "
                                 "返回结果（它调用的辅助函数可能也需要）"},
    "hint_dtype_mismatch": {
        "en": "two operands of different dtypes met in one operation (float64 and float32, say): a value changed "
              "dtype on the way, e.g. angles or a mask made in float64, a NumPy array, a `.double()`. Find where, and "
              "cast it back to the inputs' dtype (`.to(x.dtype)`, `.astype(x.dtype)`) before combining",
        "zh": "同一运算中遇到了不同 dtype 的操作数（例如 float64 与 float32）：某个值在途中变了 dtype，比如用 float64 "
              "生成的角度或掩码、NumPy 数组、`.double()`。请找到这一处，在参与运算前把它转回输入的 dtype"
              "（`.to(x.dtype)`、`.astype(x.dtype)`）"},
    "not_differentiable": {
        "en": "{function}'s output is not differentiable (was it detached, or built with .data / numpy?)",
        "zh": "{function} 的输出不可微（是否被 detach，或用 .data / numpy 构造？）"},
    "vjp_shape": {"en": "{function} returned shape {got}, expected {expected}",
                  "zh": "{function} 返回的形状为 {got}，应为 {expected}"},
    "backward_failed": {"en": "{exercise}: backward through your function failed: {problem}",
                        "zh": "{exercise}：对你的函数做反向传播失败：{problem}"},
    "only_this_function": {"en": "only {given} was given to check(), not {function}",
                           "zh": "check() 只得到了 {given}，没有 {function}"},
    "raw": {"en": "{text}", "zh": "{text}"},
    "kernel_tile_over_budget": {
        "en": "{exercise}: the kernel made a tile of shape {shape} ({op}), longer than this case's budget of {limit} "
              "elements along an axis: a tile that covers every key holds a whole row of scores at once; walk "
              "over the keys (and queries) in tiles of at most {limit}",
        "zh": "{exercise}：内核创建了形状为 {shape} 的块（{op}），某一维超过本用例每维 {limit} 个元素的预算：覆盖全部键的块"
              "会一次持有整行分数；请以不超过 {limit} 的块依次遍历键（和查询）"},
    "memory_tensor": {
        "en": "{exercise}: made a {dtype} tensor of shape {shape} ({mb:.0f} MB, in {op}), over this case's budget of "
              "{limit:g} MB per tensor: compute it in blocks instead of all at once",
        "zh": "{exercise}：创建了形状为 {shape} 的 {dtype} 张量（{mb:.0f} MB，来自 {op}），超过本用例每个张量 {limit:g} MB "
              "的预算：请分块计算，而不是一次性全部计算"},
    "memory_line": {
        "en": "{exercise}: line {line} of {file} made {mb:.0f} MB of {framework} arrays at once, over this case's "
              "budget of {limit:g} MB per tensor: compute it in blocks instead of all at once",
        "zh": "{exercise}：{file} 第 {line} 行一次创建了 {mb:.0f} MB 的 {framework} 数组，超过本用例每个张量 "
              "{limit:g} MB 的预算：请分块计算，而不是一次性全部计算"},
    "own_module_by_name": {
        "en": "your code imports {package} ({file}), your own package or one of its modules, by its bare name, "
              "which works only when a file is run as a script: import it relatively, `from {relative} import ...`, "
              "as the template does",
        "zh": "你的代码（{file}）用裸名称导入了 {package}，即你自己的包或其中的模块，这只在把文件当脚本直接运行时有效：请像模板那样"
              "使用相对导入 `from {relative} import ...`"},
    "library_not_in_course": {
        "en": "your code imports {package} ({file}), which is not available in this course: it offers {offered} and "
              "Python's standard library",
        "zh": "你的代码导入了 {package}（{file}），本课程不提供该包：可用的有 {offered} 以及 Python 标准库"},
}
