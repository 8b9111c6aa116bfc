"""Similar code: python -m attnlab.instructor.similarity and the class report's section."""

MESSAGES: dict[str, dict[str, str]] = {
    "similarity.title": {"en": "Similar code", "zh": "相似代码"},
    "similarity.intro": {
        "en": "Per exercise, the code each submission's run_* reaches (helpers and classes included) is compared statement by statement with names, attributes and strings abstracted, leaving out the template's code and what more than a tenth of the class writes. A pair's score is the share of the smaller side's code that the other side has; pairs at {threshold:.0%} or more are flagged. Alike is evidence to read, not proof of copying.",
        "zh": "对每个练习，比较各提交的 run_* 所用到的全部代码（包括辅助函数和类）：逐条语句比较，名字、属性和字符串都被抽象掉，模板自带的代码以及超过十分之一的学生都会写的代码不计在内。一对提交的得分是较小一方的代码中另一方也有的比例；得分达到 {threshold:.0%} 的提交对会被标出。相似只是需要阅读核实的线索，不是抄袭的证明。"},
    "similarity.none": {"en": "No two submissions have suspiciously alike code.", "zh": "没有发现代码可疑相似的提交。"},
    "similarity.cluster": {
        "en": "{exercise}: {count} submissions alike (up to {score:.0f}%): {names}",
        "zh": "{exercise}：{count} 份提交相似（最高 {score:.0f}%）：{names}"},
    "similarity.known_cluster": {
        "en": "{exercise}: {count} submissions match the known source {source} (up to {score:.0f}%): {names}",
        "zh": "{exercise}：{count} 份提交与已知来源 {source} 相符（最高 {score:.0f}%）：{names}"},
    "similarity.pair": {"en": "  {a} and {b}: {score:.0f}%", "zh": "  {a} 与 {b}：{score:.0f}%"},
    "similarity.more": {"en": "... and {count} more clusters (--top N to print more, --json FILE for every pair)",
                        "zh": "……另有 {count} 组未列出（用 --top N 显示更多，--json FILE 输出所有提交对）"},
    "similarity.more_report": {
        "en": "{count} more pairs are listed without their code: python -m attnlab.instructor.similarity {directory} --json pairs.json gives every pair with its matched lines.",
        "zh": "另有 {count} 对只列出名字而未展示代码：python -m attnlab.instructor.similarity {directory} --json pairs.json 可输出每一对及其匹配的行。"},
    "similarity.summary": {
        "en": "{submissions} submissions, {exercises} exercises: {pairs} alike pairs of students, {known} matches with known sources, {clusters} clusters ({seconds:.2f} s)",
        "zh": "{submissions} 份提交，{exercises} 个练习：{pairs} 对学生相似，{known} 处与已知来源相符，共 {clusters} 组（{seconds:.2f} 秒）"},
    "similarity.skipped": {"en": "{name}: not compared ({problem})", "zh": "{name}：未比较（{problem}）"},
    "similarity.not_a_directory": {"en": "{path} is not a directory of submissions", "zh": "{path} 不是存放提交的目录"},
    "similarity.needs_submissions": {
        "en": "This section compares the submissions' code, so it needs the directory they were graded from. Run: python -m attnlab.instructor.report {results} --submissions SUBMISSIONS_DIR",
        "zh": "本节比较各提交的代码，因此需要评分时所用的提交目录。请运行：python -m attnlab.instructor.report {results} --submissions 提交目录"},
    "similarity.histogram": {"en": "Scores of all {pairs} pairs of submissions compared (per exercise); the line marks the threshold, {threshold:.0%}",
                             "zh": "所有 {pairs} 对被比较的提交（按练习）的得分分布；竖线为阈值 {threshold:.0%}"},
    "similarity.histogram_short": {"en": "Histogram of pair scores", "zh": "提交对得分直方图"},
    "similarity.clusters_title": {"en": "Clusters", "zh": "相似组"},
    "similarity.pairs_title": {"en": "Pairs, side by side", "zh": "逐对并排比较"},
    "similarity.known_title": {"en": "Matches with known sources", "zh": "与已知来源相符"},
    "similarity.score": {"en": "score", "zh": "得分"},
    "similarity.members": {"en": "submissions", "zh": "提交"},
    "similarity.source": {"en": "known source", "zh": "已知来源"},
    "similarity.exercise": {"en": "exercise", "zh": "练习"},
    "similarity.pair_title": {"en": "{exercise}: {a} and {b}, {score:.0f}%", "zh": "{exercise}：{a} 与 {b}，{score:.0f}%"},
    "similarity.highlight_note": {
        "en": "Both files whole; matched statements are highlighted; click a line number to jump to its match on the other side.",
        "zh": "两个文件完整显示；匹配的语句被高亮；点击行号可跳到另一侧与之匹配的位置。"},
    "similarity.axis_score": {"en": "score", "zh": "得分"},
    "similarity.axis_pairs": {"en": "pairs (log scale)", "zh": "提交对数（对数刻度）"},
}
