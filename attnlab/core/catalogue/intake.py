"""Taking in a class's submissions (grade.py's paths, LMS exports), naming them, and grades back to the LMS."""

MESSAGES: dict[str, dict[str, str]] = {
    # usage errors: grade.py exits 2 before grading anything
    "intake.missing": {"en": "no such file or directory: {paths}", "zh": "找不到文件或目录：{paths}"},
    "intake.out_not_dir": {"en": "--out {path} exists and is not a directory", "zh": "--out {path} 已存在且不是目录"},
    "intake.out_inside": {
        "en": "--out {out} lies inside the submissions given as {path}: the next run would read what grade.py writes "
              "there as submissions (and a runner would get it with the submission's copy); choose a directory "
              "outside it",
        "zh": "--out {out} 位于作为提交给出的 {path} 之内：下次运行会把 grade.py 写在那里的内容当作提交读取"
              "（运行器也会随提交的副本拿到它）；请选择它之外的目录"},
    "intake.given_twice": {"en": "{path} is given twice (also as {first}); give each submission once",
                           "zh": "{path} 被给出了两次（另一次是 {first}）；每份提交只需给出一次"},
    "intake.two_exports": {"en": "more than one Gradescope export in one path ({found}): give each export on the command line",
                           "zh": "一个路径中有多个 Gradescope 导出（{found}）：请在命令行上分别给出每个导出"},
    "intake.not_gradescope": {"en": "{path} has no submission_metadata.yml at its root or one folder down: it is not a Gradescope export",
                              "zh": "{path} 的根目录及其下一层目录中都没有 submission_metadata.yml：它不是 Gradescope 导出"},
    "intake.not_brightspace": {"en": "{path} has no folder named `<submission id>-<user id> - <name> - <when>` at its root "
                                     "or one folder down: it is not a Brightspace download",
                               "zh": "{path} 的根目录及其下一层目录中都没有名为 `<提交 id>-<用户 id> - <姓名> - <时间>` 的文件夹："
                                     "它不是 Brightspace 下载的文件"},
    "intake.bad_metadata": {"en": "cannot read the Gradescope metadata {path}: {problem}",
                            "zh": "无法读取 Gradescope 元数据 {path}：{problem}"},
    "intake.looks_like_class": {"en": "{path} looks like a class, not one student's upload: {count} entries are archives or folders holding one (a zip or a tar). Grade each as a student with `{folders}`, or as one student's upload with `{single}`",
                                "zh": "{path} 看起来是整个班级而不是一名学生的上传：其中 {count} 个条目是压缩包（zip 或 tar）或含压缩包的文件夹。按每名学生评分请用 `{folders}`；若确为一名学生的上传，请用 `{single}`"},
    "intake.bad_class_archive": {"en": "cannot unpack the class archive {path}: {problem}",
                                 "zh": "无法解压班级压缩包 {path}：{problem}"},
    "intake.export_inside": {"en": "{path} holds a {layout} download, {export}: give the download itself, `{command}`",
                             "zh": "{path} 中有一个 {layout} 下载文件 {export}：请直接给出该文件，`{command}`"},
    # per-submission: the result says this, the other submissions are graded
    "intake.two_packages": {"en": "two candidate packages: {found}; submit only one folder holding __init__.py and the exercise modules",
                            "zh": "找到了多个候选包：{found}；请只提交一个包含 __init__.py 和各练习模块的文件夹"},
    "intake.several_zips": {"en": "no package, and several zip files inside ({found}): upload one package (attnlab submit makes the zip)",
                            "zh": "没有找到包，但其中有多个 zip 文件（{found}）：请只上传一个包（用 attnlab submit 生成 zip）"},
    "intake.several_folders": {"en": "several folders hold exercise modules ({found}): submit only one package folder (attnlab submit makes the zip)",
                               "zh": "有多个文件夹包含练习模块（{found}）：请只提交一个包文件夹（用 attnlab submit 生成 zip）"},
    "intake.no_package": {"en": "no package found: no folder holds __init__.py with the exercise modules ({modules}); found: {found}",
                          "zh": "没有找到包：没有任何文件夹同时包含 __init__.py 和练习模块（{modules}）；找到的是：{found}"},
    "intake.nothing_there": {"en": "{source} has no files at {path} (hidden and tool files such as .DS_Store and __MACOSX are not read)",
                             "zh": "{source} 中 {path} 处没有文件（.DS_Store、__MACOSX 等隐藏文件和工具文件不予读取）"},
    "intake.zip_in_zip": {"en": "{name} holds no package, only another zip ({inner}): upload the package itself",
                          "zh": "{name} 中没有包，只有另一个 zip（{inner}）：请直接上传包"},
    # attnlab submit
    "intake.submit_name": {"en": "submitting as {name} ({source}; change it with --name)",
                           "zh": "以 {name} 的名义提交（{source}；可用 --name 修改）"},
    "intake.bad_name": {"en": "--name {name!r} has no letters or digits left for a file name",
                        "zh": "--name {name!r} 中没有可用于文件名的字母或数字"},
    # grades back to the LMS (python -m attnlab.instructor.lms)
    "lms.written": {"en": "wrote {path}: {rows} rows for {kind}", "zh": "已写入 {path}：{rows} 行，供 {kind} 导入"},
    "lms.unreadable": {"en": "left out {path}: {why}; its student has no grade in the file (grade.py regrades it when "
                             "run again into the same --out)",
                       "zh": "已略去 {path}：{why}；该学生在文件中没有成绩（再次以同一 --out 运行 grade.py 会重新评分）"},
    "lms.left_out": {"en": "left out {count} submission(s) with no {field} in their LMS data: {names}",
                     "zh": "有 {count} 份提交的 LMS 数据中没有 {field}，已略去：{names}"},
    "lms.roster_hint": {"en": " (give --roster with the LMS's own class list to match them)",
                        "zh": "（请用 --roster 给出 LMS 自己的名单以匹配他们）"},
    "lms.roster_unmatched": {"en": "left out {count} submission(s) that the roster {path} does not match to exactly one person: {names}",
                             "zh": "名单 {path} 无法将 {count} 份提交各自匹配到唯一一人，已略去：{names}"},
    "lms.nothing_written": {"en": "nothing written: no row has a {field}, so {kind} would match none of them",
                            "zh": "未写入任何内容：没有一行带有 {field}，{kind} 无法匹配其中任何一行"},
    "lms.item_needed": {"en": "--item is needed with --id {id}: the grade column's name to import into",
                        "zh": "使用 --id {id} 时需要 --item：要导入的成绩列的名称"},
    "lms.mixed_checks": {
        "en": "{path} holds results graded with different checks ({digests}): a rerun after the specs, the "
              "reference, the grader or the limits changed did not finish. Run grade.py into it again (it regrades "
              "the older ones), then write the grade file: no file was written",
        "zh": "{path} 中的结果是用不同的检查评出的（{digests}）：规格、参考实现、评分程序或限制改变后的重新评分没有完成。"
              "请再次以它为 --out 运行 grade.py（会重新评分较旧的结果），然后再生成成绩文件：未写出任何文件"},
    "lms.no_results": {"en": "no graded results in {path} (run grade.py --out {path} first)",
                       "zh": "{path} 中没有评分结果（请先运行 grade.py --out {path}）"},
}
