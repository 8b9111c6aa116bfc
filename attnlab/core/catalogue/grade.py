"""Uploads and the grader: what results' feedback says about the submission itself."""

MESSAGES: dict[str, dict[str, str]] = {
    "upload.symlink": {"en": "symlinks are not allowed in a submission: {path}", "zh": "提交中不允许符号链接：{path}"},
    "upload.empty": {"en": "the submission is empty", "zh": "提交为空"},
    "upload.no_package": {"en": "no __init__.py found: submit the package directory laid out like student_template/",
                          "zh": "没有找到 __init__.py：请提交与 student_template/ 结构相同的包目录"},
    "upload.name_not_utf8": {"en": "archive entry name is not UTF-8: {name}", "zh": "压缩包条目名不是 UTF-8：{name}"},
    "upload.escapes": {"en": "archive entry escapes the submission: {name}", "zh": "压缩包条目越出了提交目录：{name}"},
    "upload.zip_symlink": {"en": "zip entry is a symlink: {name}", "zh": "zip 条目是符号链接：{name}"},
    "upload.tar_link": {"en": "archive entry is a link: {name}", "zh": "压缩包条目是链接：{name}"},
    "upload.bad_tar": {"en": "not a readable tar archive: {problem}", "zh": "不是可读取的 tar 压缩包：{problem}"},
    "upload.not_unpacked": {
        "en": "{found}: a {kind} archive, which grade.py does not unpack (it reads .zip, and .tar, .tar.gz, .tgz, "
              ".tar.bz2, .tar.xz): ask for a zip of the package folder, or unpack it into a folder and grade that",
        "zh": "{found}：这是 {kind} 压缩包，grade.py 不会解压（它能读取 .zip 以及 .tar、.tar.gz、.tgz、.tar.bz2、.tar.xz）："
              "请让学生提交包文件夹的 zip，或先解压到一个文件夹再评分"},
    "upload.bad_zip": {"en": "not a readable zip file: {problem}", "zh": "不是可读取的 zip 文件：{problem}"},
    "upload.too_many_entries": {"en": "the archive has {count} entries (at most {limit})",
                                "zh": "压缩包中有 {count} 个条目（最多 {limit} 个）"},
    "upload.too_big": {"en": "the archive inflates to more than {mb} MB", "zh": "压缩包解压后超过 {mb} MB"},
    "upload.bomb": {"en": "archive entry {name} inflates suspiciously (a zip bomb?)",
                    "zh": "压缩包条目 {name} 的解压比例异常（压缩炸弹？）"},
    "upload.archive_bomb": {"en": "{name} inflates to more than {ratio} times its size (an archive bomb?)",
                            "zh": "{name} 解压后超过其大小的 {ratio} 倍（压缩炸弹？）"},
    "upload.missing": {"en": "{path} does not exist", "zh": "{path} 不存在"},
    "upload.not_dir_or_zip": {"en": "{path} is neither a directory, a zip or tar archive nor a notebook",
                              "zh": "{path} 既不是目录、zip 或 tar 压缩包，也不是笔记本"},
    "upload.failed": {"en": "submission {name}: {problem}", "zh": "提交 {name}：{problem}"},
    "upload.not_a_directory": {"en": "submission {path} is not a directory", "zh": "提交 {path} 不是目录"},
    "upload.too_many_files": {"en": "submission {path} has more than {limit} files",
                              "zh": "提交 {path} 中的文件超过 {limit} 个"},
    "upload.too_large": {"en": "submission {path} is larger than {mb} MB", "zh": "提交 {path} 大于 {mb} MB"},
    "upload.cannot_copy": {"en": "cannot copy the submission {path}: {problem}", "zh": "无法复制提交 {path}：{problem}"},
    "grade.import_failed": {"en": "importing the submission failed: {problem}", "zh": "导入提交失败：{problem}"},
    "grade.cpu_limit": {"en": "{exercise}: used more than its {seconds:g} s of CPU time (the time limit)",
                        "zh": "{exercise}：CPU 时间超过了 {seconds:g} 秒（时间限制）"},
    "grade.import_cpu_limit": {"en": "importing the submission used more than {seconds:g} s of CPU time",
                               "zh": "导入提交所用的 CPU 时间超过了 {seconds:g} 秒"},
    "grade.import_idle_limit": {
        "en": "importing the submission did not finish after {seconds:g} s, though it computed for only {cpu:.1f} s: "
              "it was waiting (sleep, input that never comes?)",
        "zh": "导入提交在 {seconds:g} 秒后仍未完成，但只计算了 {cpu:.1f} 秒：它一直在等待（sleep、永远不会到来的输入？）"},
    "grade.import_overloaded": {
        "en": "importing the submission did not finish after {seconds:g} s of wall-clock time, most of it spent "
              "waiting for a CPU: the grading machine was overloaded, which is not your code's doing; it will be "
              "graded again",
        "zh": "导入提交在 {seconds:g} 秒的墙钟时间后仍未完成，其中大部分时间在等待 CPU：评分机器过载，"
              "这不是你的代码造成的；它会被重新评分"},
    "grade.idle_limit": {
        "en": "{exercise}: not finished after {seconds:g} s, though it computed for only {cpu:.1f} s: it was waiting "
              "(sleep, a lock, input that never comes?)",
        "zh": "{exercise}：{seconds:g} 秒后仍未结束，但只计算了 {cpu:.1f} 秒：它一直在等待（sleep、锁、永远不会到来的输入？）"},
    "grade.overloaded": {
        "en": "{exercise}: not finished after {seconds:g} s of wall-clock time, most of it spent waiting for a CPU "
              "({cpu:.1f} s computed): the grading machine was overloaded, which is not your code's doing; it "
              "will be graded again",
        "zh": "{exercise}：{seconds:g} 秒的墙钟时间后仍未结束，其中大部分时间在等待 CPU（计算了 {cpu:.1f} 秒）："
              "评分机器过载，这不是你的代码造成的；它会被重新评分"},
    "grade.protocol": {"en": "{exercise}: runner protocol violation: {detail}", "zh": "{exercise}：运行器协议违规：{detail}"},
    "grade.killed": {"en": "{exercise}: the runner was killed (SIGKILL), most likely out of memory",
                     "zh": "{exercise}：运行器被杀死（SIGKILL），很可能是内存不足"},
    "grade.crashed": {"en": "{exercise}: crashed (signal {signal}, {name})", "zh": "{exercise}：崩溃（信号 {signal}，{name}）"},
    "grade.exited": {"en": "{exercise}: the runner exited with status {code} (sys.exit or os._exit?)",
                     "zh": "{exercise}：运行器以状态 {code} 退出（sys.exit 或 os._exit？）"},
    "grade.out_of_memory": {"en": "{exercise}: out of memory ({detail})", "zh": "{exercise}：内存不足（{detail}）"},
    "grade.bad_request": {"en": "bad request ({detail})", "zh": "错误的请求（{detail}）"},
    "grade.cannot_return": {"en": "{exercise}: cannot return this result: {detail}",
                            "zh": "{exercise}：无法返回此结果：{detail}"},
    "grade.inplace_reshaped": {"en": "your function changed the shape or dtype of its input {name} in place",
                               "zh": "你的函数原地改变了输入 {name} 的形状或 dtype"},
    "grade.tail": {"en": "--- last output of your code ---", "zh": "--- 你的代码最后的输出 ---"},
}
