#!/usr/bin/python3
"""startcpu.py: an interleaved A/B of start-up CPU, for quick iteration.

    bench/startcpu.py ROUNDS RUNS NAME='[VAR=val ...] CMD ARGS...' ...

Each round runs bare /usr/bin/true and then every command RUNS times, in an
order rotated by round, and takes the mean user+system time per run from
wait4's rusage (the command and the children it waited for: an init's app).
A cell is the median over the rounds of (command - true) in the same round,
with its min-max; the first command is divided by each other one. It is
what `make bench`'s start-up CPU row measures, without hyperfine and without
the other figures, so one cut can be judged in a minute. Leading VAR=val
words set the environment of that command only. /usr/bin/python3: the
python3 on PATH may be a pyenv without the standard modules' build.
"""
import os
import shlex
import statistics
import sys


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, runs = int(sys.argv[1]), int(sys.argv[2])
    cmds = [("true", ["/usr/bin/true"])]
    for a in sys.argv[3:]:
        name, cmd = a.split("=", 1)
        cmds.append((name, shlex.split(cmd)))
    per = {n: [] for n, _ in cmds}
    for r in range(rounds):
        k = r % len(cmds)
        for name, cmd in cmds[k:] + cmds[:k]:
            env, argv = dict(os.environ), list(cmd)
            while "=" in argv[0]:
                var, val = argv.pop(0).split("=", 1)
                env[var] = val
            total = 0.0
            for _ in range(runs):
                pid = os.posix_spawn(argv[0], argv, env)
                _, _, ru = os.wait4(pid, 0)
                total += ru.ru_utime + ru.ru_stime
            per[name].append(total / runs * 1e6)
    med = {}
    for name, _ in cmds:
        v = per[name] if name == "true" else [x - t for x, t in zip(per[name], per["true"])]
        med[name] = statistics.median(v)
        print(f"{name:16s} {med[name]:8.0f} us ({min(v):.0f}-{max(v):.0f})")
    first = cmds[1][0]
    for name, _ in cmds[2:]:
        print(f"{first}/{name} = {med[first] / med[name]:.2f}")
    with open("/proc/loadavg") as f:
        print("load average at the end:", f.read().strip())


if __name__ == "__main__":
    main()
