"""The Gradescope autograder: its time budget and the self-test setup.sh runs when the image is built."""

MESSAGES: dict[str, dict[str, str]] = {
    "autograder.not_reached": {
        "en": "not graded: the autograder's time budget ran out before this exercise started (no points; "
              "the course staff can regrade it)",
        "zh": "未评分：自动评分器的时间预算在本练习开始之前已用完（不计分；课程人员可以重新评分）"},
    "autograder.selftest_level": {
        "en": "self-test: runners get isolation {level}", "zh": "自检：运行器的隔离级别为 {level}"},
    "autograder.selftest_refused": {
        "en": "self-test failed: grade.py refused to grade because student code would run as root (its message "
              "is in the log above). Change the image as that message says, then rebuild",
        "zh": "自检失败：grade.py 拒绝评分，因为学生代码将以 root 身份运行（原因见上方日志）。"
              "请按该消息修改镜像后重新构建"},
    "autograder.selftest_root": {
        "en": "self-test failed: student code would run as root (isolation {level}). Give the container the "
              "capabilities to run it as another user (Docker's defaults) or run the autograder as a non-root "
              "user, then rebuild",
        "zh": "自检失败：学生代码将以 root 身份运行（隔离级别 {level}）。请为容器授予以其他用户身份运行代码所需的"
              "能力（Docker 的默认能力集），或以非 root 用户运行自动评分器，然后重新构建"},
    "autograder.selftest_reference": {
        "en": "self-test failed: the reference scored {score:g} of {max:g}, not full marks ({failed}). The image "
              "cannot grade correctly: check the grader's log above (missing packages, a runner that cannot "
              "read the interpreter, time limits too tight for this machine), then rebuild",
        "zh": "自检失败：参考实现得分 {score:g} / {max:g}，不是满分（{failed}）。此镜像无法正确评分："
              "请检查上方评分器日志（缺少的包、运行器无法读取解释器、时间限制对本机过紧），然后重新构建"},
    "autograder.selftest_template": {
        "en": "self-test failed: the untouched template scored {score:g}, expected 0 ({failed})",
        "zh": "自检失败：未修改的模板得分 {score:g}，应为 0（{failed}）"},
    "autograder.selftest_no_results": {
        "en": "self-test failed: grading {what} gave no results of grade.py's (log above)",
        "zh": "自检失败：为 {what} 评分时 grade.py 没有给出结果（日志见上方）"},
    "autograder.selftest_ok": {
        "en": "self-test passed: the reference scores {max:g} of {max:g}, the untouched template 0, runners get "
              "isolation {level}",
        "zh": "自检通过：参考实现得分 {max:g} / {max:g}，未修改的模板得 0 分，运行器的隔离级别为 {level}"},
}
