"""Run a command as a process of a default Docker container would run (how tests/simulations.py simulates one).

    python3 tests/tools/docker_default.py [--no-landlock] -- COMMAND [ARG ...]

As root, with CAP_SYS_ADMIN: installs a seccomp filter that refuses what Docker's default profile refuses a
container without CAP_SYS_ADMIN where namespaces and mounts are concerned (unshare, setns, mount, umount2,
pivot_root: EPERM; clone with any namespace flag: EPERM; clone3: ENOSYS, so that the C library falls back to
clone, as it does in Docker), then drops CAP_SYS_ADMIN from the bounding set with capsh (libcap2-bin), as
Docker's default capability set does not have it, and execs COMMAND. The filter and the dropped capability
are inherited by everything COMMAND starts. --no-landlock also refuses Landlock (ENOSYS), as on a kernel
built without it. Needs libseccomp's Python bindings (Debian: python3-seccomp), so run it with the
system's python3.
"""

import errno
import os
import shutil
import sys

import seccomp

CLONE_NAMESPACE_FLAGS = {"CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000, "CLONE_NEWUTS": 0x04000000,
                         "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
                         "CLONE_NEWNET": 0x40000000}
REFUSED = ("unshare", "setns", "mount", "umount2", "pivot_root")
LANDLOCK = ("landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self")


def docker_like_filter(*, landlock: bool) -> seccomp.SyscallFilter:
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    rules.set_attr(seccomp.Attr.CTL_NNP, 0)  # Docker does not set no_new_privs; as root we need not either
    for name in REFUSED:
        rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
    for flag in CLONE_NAMESPACE_FLAGS.values():  # one rule per flag: "any of them set" is their union
        rules.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    if not landlock:
        for name in LANDLOCK:
            rules.add_rule(seccomp.ERRNO(errno.ENOSYS), name)
    return rules


def main(argv: list[str]) -> int:
    landlock = "--no-landlock" not in argv[: argv.index("--")]
    command = argv[argv.index("--") + 1:]
    capsh = shutil.which("capsh")
    if os.geteuid() != 0 or capsh is None or not command:
        print("docker_default.py: needs root, capsh (libcap2-bin) and a command after --", file=sys.stderr)
        return 2
    docker_like_filter(landlock=landlock).load()
    os.execv(capsh, [capsh, "--drop=cap_sys_admin", "--", "-c", 'exec "$0" "$@"', *command])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
