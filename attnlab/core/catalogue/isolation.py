"""The sandbox: what grade.py says about the isolation it can give runners."""

MESSAGES: dict[str, dict[str, str]] = {
    "isolation.refused": {
        "en": "started as root, and runners here could get only isolation {level}: student code would run as root "
              "({why}). Give the container CAP_SETUID, CAP_SETGID, CAP_SETPCAP, CAP_CHOWN, CAP_FOWNER, CAP_KILL "
              "and CAP_DAC_OVERRIDE (Docker's default capabilities include them) or CAP_SYS_ADMIN, run grade.py "
              "as an ordinary user, or pass --allow-unsandboxed",
        "zh": "以 root 身份启动，而此处运行器只能获得 {level} 隔离：学生代码将以 root 身份运行（{why}）。"
              "请为容器授予 CAP_SETUID、CAP_SETGID、CAP_SETPCAP、CAP_CHOWN、CAP_FOWNER、CAP_KILL 和 "
              "CAP_DAC_OVERRIDE（Docker 的默认能力集包含它们）或 CAP_SYS_ADMIN，或以普通用户身份运行 grade.py，"
              "或加上 --allow-unsandboxed"},
    "isolation.missing_capabilities": {
        "en": "missing capabilities: {names}", "zh": "缺少的能力：{names}"},
    "isolation.forced": {
        "en": "--isolation asked for it", "zh": "由 --isolation 指定"},
    "isolation.runner_uids": {
        "en": "runner uids {uids}", "zh": "运行器 uid {uids}"},
    "isolation.worker_cpus": {
        "en": "workers pinned to CPU {cpus}", "zh": "各工作进程分别固定在 CPU {cpus}"},
    "isolation.no_worker_cpus": {
        "en": "workers not pinned: other grade.py runs hold every CPU", "zh": "工作进程未固定 CPU：其他 grade.py 运行占用了全部 CPU"},
}
