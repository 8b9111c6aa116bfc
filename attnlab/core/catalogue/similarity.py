"""Similar code: python -m attnlab.instructor.similarity and the class report's section."""

MESSAGES: dict[str, dict[str, str]] = {
    "similarity.title": {"en": "Similar code", "zh": "相似代码"},
    "similarity.intro": {
        "en": "Pairs of submissions whose code for an exercise is alike once names and literals are abstracted, "
              "leaving out the template's own code and what more than a tenth of the class writes (winnowed "
              "fingerprints of {k} tokens, as in MOSS). Alike is evidence to read, not proof of copying.",
        "zh": "把名字和字面量抽象掉之后，某个练习的代码彼此相似的提交对；模板自带的代码以及超过十分之一的学生都会写的代码"
              "不计在内（与 MOSS 相同，对 {k} 个词元的片段做 winnowing 指纹）。相似只是需要阅读核实的线索，不是抄袭的证明。"},
    "similarity.none": {"en": "No two submissions have suspiciously alike code.", "zh": "没有发现代码可疑相似的提交。"},
    "similarity.pair": {
        "en": "{exercise}: {a} and {b} share {shared} fingerprints ({a_share:.0f}% of {a}'s, {b_share:.0f}% of {b}'s)",
        "zh": "{exercise}：{a} 与 {b} 共有 {shared} 个指纹（占 {a} 的 {a_share:.0f}%，占 {b} 的 {b_share:.0f}%）"},
    "similarity.lines": {"en": "  {a_path} lines {a_from}-{a_to}  |  {b_path} lines {b_from}-{b_to}",
                         "zh": "  {a_path} 第 {a_from}-{a_to} 行  |  {b_path} 第 {b_from}-{b_to} 行"},
    "similarity.more": {"en": "... and {count} more (--top N to print more, --json FILE for every pair)",
                        "zh": "……另有 {count} 项未列出（用 --top N 显示更多，--json FILE 输出所有提交对）"},
    "similarity.more_report": {
        "en": "{count} more are not shown: python -m attnlab.instructor.similarity lists them all.",
        "zh": "另有 {count} 项未显示：python -m attnlab.instructor.similarity 可列出全部。"},
    "similarity.summary": {
        "en": "{submissions} submissions, {exercises} exercises: {pairs} alike pairs, {matches} once identical "
              "groups count once ({seconds:.2f} s)",
        "zh": "{submissions} 份提交，{exercises} 个练习：{pairs} 对相似；相同代码的组各算一次，共 {matches} 项（{seconds:.2f} 秒）"},
    "similarity.group": {
        "en": "{exercise}: {count} submissions have the same code once names and literals are abstracted: {names}",
        "zh": "{exercise}：{count} 份提交在抽象掉名字和字面量之后代码完全相同：{names}"},
    "similarity.skipped": {"en": "{name}: not compared ({problem})", "zh": "{name}：未比较（{problem}）"},
    "similarity.not_a_directory": {"en": "{path} is not a directory of submissions", "zh": "{path} 不是存放提交的目录"},
    "similarity.lines_short": {"en": "lines {start}-{end}", "zh": "第 {start}-{end} 行"},
}
