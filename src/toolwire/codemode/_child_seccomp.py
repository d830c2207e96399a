"""Runs inside the sandbox child: the seccomp filter, a classic-BPF denylist built by hand.

Standard library only (shipped into a `python -I -S` child as source), so no libseccomp.
Every listed syscall fails with EPERM; any syscall ABI but the native one (x32, i386) kills
the process. Beyond sockets, processes, namespaces and mounts, the list closes what Landlock
leaves open: metadata writes on files (chmod, chown, utime, extended attributes, and the
`FS_IOC_SETFLAGS`/`FS_IOC_FSSETXATTR` ioctls), memory the address-space limit does not count
(memfd, System V IPC, POSIX message queues), file-system watches (inotify, fanotify), signals
through a file's owner (`F_SETOWN`, `F_SETSIG`, `FIOSETOWN`), `prctl` (so the parent-death
signal cannot be cleared; the runner needs no `prctl` once the filter is on), the mount
table (`listmount`, `statmount`: the host's mounts, which Landlock hides in /proc), and
scheduling (nice, policy, affinity, I/O priority: with the host's uid, a runner could starve
the host, since no pid namespace hides it and Landlock does not cover these calls).
"""

from __future__ import annotations

import struct

# Syscall numbers: x86-64 from asm/unistd_64.h, AArch64 from asm-generic/unistd.h.
_COMMON = {
    "clone3": 435, "pidfd_open": 434, "pidfd_send_signal": 424, "pidfd_getfd": 438, "open_tree": 428,
    "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "process_madvise": 440,
    "process_mrelease": 448, "memfd_secret": 447, "fchmodat2": 452, "setxattrat": 463, "removexattrat": 466,
    "open_tree_attr": 467, "file_setattr": 469, "statmount": 457, "listmount": 458,
}  # fmt: skip
BLOCKED: dict[str, dict[str, int]] = {
    "x86_64": {
        **_COMMON,
        "socket": 41, "socketpair": 53, "connect": 42, "bind": 49, "clone": 56, "fork": 57, "vfork": 58,
        "execve": 59, "execveat": 322, "ptrace": 101, "kill": 62, "tkill": 200, "tgkill": 234,
        "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297, "process_vm_readv": 310, "process_vm_writev": 311,
        "unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161,
        "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321, "perf_event_open": 298,
        "userfaultfd": 323, "setrlimit": 160, "prlimit64": 302, "init_module": 175, "finit_module": 313,
        "delete_module": 176, "kexec_load": 246, "kexec_file_load": 320, "open_by_handle_at": 304,
        "name_to_handle_at": 303, "personality": 135, "iopl": 172, "ioperm": 173, "swapon": 167, "swapoff": 168,
        "reboot": 169, "acct": 163, "quotactl": 179, "syslog": 103, "uselib": 134, "kcmp": 312,
        "chmod": 90, "fchmod": 91, "fchmodat": 268, "chown": 92, "fchown": 93, "lchown": 94, "fchownat": 260,
        "utime": 132, "utimes": 235, "utimensat": 280, "futimesat": 261, "setxattr": 188, "lsetxattr": 189,
        "fsetxattr": 190, "removexattr": 197, "lremovexattr": 198, "fremovexattr": 199,
        "memfd_create": 319, "shmget": 29, "shmat": 30, "shmctl": 31, "msgget": 68, "semget": 64, "mq_open": 240,
        "inotify_init": 253, "inotify_init1": 294, "inotify_add_watch": 254, "fanotify_init": 300,
        "fanotify_mark": 301, "prctl": 157, "setpriority": 141, "sched_setparam": 142, "sched_setscheduler": 144,
        "sched_setaffinity": 203, "sched_setattr": 314, "ioprio_set": 251,
    },
    "aarch64": {
        **_COMMON,
        "socket": 198, "socketpair": 199, "connect": 203, "bind": 200, "clone": 220, "execve": 221,
        "execveat": 281, "ptrace": 117, "kill": 129, "tkill": 130, "tgkill": 131, "rt_sigqueueinfo": 138,
        "rt_tgsigqueueinfo": 240, "process_vm_readv": 270, "process_vm_writev": 271, "unshare": 97, "setns": 268,
        "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "keyctl": 219, "add_key": 217,
        "request_key": 218, "bpf": 280, "perf_event_open": 241, "userfaultfd": 282, "setrlimit": 164,
        "prlimit64": 261, "init_module": 105, "finit_module": 273, "delete_module": 106, "kexec_load": 104,
        "kexec_file_load": 294, "open_by_handle_at": 265, "name_to_handle_at": 264, "personality": 92,
        "swapon": 224, "swapoff": 225, "reboot": 142, "acct": 89, "quotactl": 60, "syslog": 116, "kcmp": 272,
        "fchmod": 52, "fchmodat": 53, "fchownat": 54, "fchown": 55, "utimensat": 88, "setxattr": 5,
        "lsetxattr": 6, "fsetxattr": 7, "removexattr": 14, "lremovexattr": 15, "fremovexattr": 16,
        "memfd_create": 279, "shmget": 194, "shmat": 196, "shmctl": 195, "msgget": 186, "semget": 190,
        "mq_open": 180, "inotify_init1": 26, "inotify_add_watch": 27, "fanotify_init": 262, "fanotify_mark": 263,
        "prctl": 167, "setpriority": 140, "sched_setparam": 118, "sched_setscheduler": 119, "sched_setaffinity": 122,
        "sched_setattr": 274, "ioprio_set": 30,
    },
}  # fmt: skip
IOCTL = {"x86_64": 16, "aarch64": 29}
BLOCKED_IOCTLS = {
    "FS_IOC_SETFLAGS": 0x40086602,  # chattr: immutable, append-only, no-atime...
    "FS_IOC32_SETFLAGS": 0x40046602,
    "FS_IOC_SETVERSION": 0x40087602,
    "FS_IOC32_SETVERSION": 0x40047602,
    "FS_IOC_FSSETXATTR": 0x401C5820,  # project ids and the same flags, xfs-style
    "FIOSETOWN": 0x8901,  # the same as F_SETOWN below
    "SIOCSPGRP": 0x8902,
}
FCNTL = {"x86_64": 72, "aarch64": 25}
BLOCKED_FCNTLS = {
    # A file's owner gets a signal (SIGIO kills by default, F_SETSIG picks any) on I/O: a way to
    # signal the host that `kill` and Landlock's signal scope (ABI 6+ only) do not both cover.
    "F_SETOWN": 8,
    "F_SETSIG": 10,
    "F_SETOWN_EX": 15,
}
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_X32_BIT = 0x40000000
_COMMAND = 24  # offset of the low 32 bits of args[1] (ioctl's and fcntl's command) in `struct seccomp_data`

_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO_EPERM = 0x00050000 | 1
_RET_ALLOW = 0x7FFF0000
_LOAD, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06


def seccomp_program(machine: str) -> bytes | None:
    """The classic-BPF filter for `machine`, or None where the syscall table is unknown."""
    blocked = BLOCKED.get(machine)
    if blocked is None:
        return None
    # (code, jump if true, jump if false, k); jumps name a label, resolved to offsets below.
    program: list[tuple[int, str | None, str | None, int]] = [
        (_LOAD, None, None, 4),  # A = seccomp_data.arch
        (_JEQ, "native", None, AUDIT_ARCH[machine]),
        (_RET, None, None, _RET_KILL_PROCESS),
    ]
    labels = {"native": len(program)}
    program.append((_LOAD, None, None, 0))  # A = seccomp_data.nr
    if machine == "x86_64":
        program.append((_JGE, "deny", None, _X32_BIT))  # the x32 ABI shares the arch value
    program += [(_JEQ, "deny", None, number) for number in sorted(set(blocked.values()))]
    program += [
        (_JEQ, "ioctl", None, IOCTL[machine]),
        (_JEQ, "fcntl", None, FCNTL[machine]),
        (_RET, None, None, _RET_ALLOW),
    ]
    for label, commands in (("ioctl", BLOCKED_IOCTLS), ("fcntl", BLOCKED_FCNTLS)):
        labels[label] = len(program)
        program.append((_LOAD, None, None, _COMMAND))
        program += [(_JEQ, "deny", None, command) for command in sorted(commands.values())]
        program.append((_RET, None, None, _RET_ALLOW))
    labels["deny"] = len(program)
    program.append((_RET, None, None, _RET_ERRNO_EPERM))

    def offset(position: int, label: str | None) -> int:
        return 0 if label is None else labels[label] - position - 1

    return b"".join(
        struct.pack("HBBI", code, offset(i, true), offset(i, false), k)
        for i, (code, true, false, k) in enumerate(program)
    )
