#!/usr/bin/env python3
"""Binary size and start-up time of installed commands, side by side (the README's table).

Usage: tools/startup.py [--runs N] [--wheel NAME=WHEEL]... NAME=EXECUTABLE...   e.g.
    tools/startup.py --wheel wheelport=dist/wheelport-0.1.0-....whl \
        wheelport=venv/bin/wheelport ruff=venv/bin/ruff uv=venv/bin/uv

Each EXECUTABLE is run N times (default 200) with `--version`, interleaved (one run of each in
turn, so load on a shared machine hits all alike), after 10 warm-up runs each; the time is
the wall clock from posix_spawn to waitpid. Prints a Markdown table: file size, median and
minimum time, and with `--wheel` the size of the wheel each command came from.
"""

import argparse
import os
import statistics
import time


def spawn_once(exe):
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        fa = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
        t0 = time.perf_counter_ns()
        pid = os.posix_spawn(exe, [exe, "--version"], os.environ, file_actions=fa)
        _, status = os.waitpid(pid, 0)
        t1 = time.perf_counter_ns()
    finally:
        os.close(devnull)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{exe} --version failed")
    return (t1 - t0) / 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--wheel", action="append", default=[], metavar="NAME=WHEEL")
    ap.add_argument("tools", nargs="+", metavar="NAME=EXECUTABLE")
    a = ap.parse_args()
    tools = [t.split("=", 1) for t in a.tools]
    wheels = dict(w.split("=", 1) for w in a.wheel)
    for _, exe in tools:
        for _ in range(10):
            spawn_once(exe)
    times = {name: [] for name, _ in tools}
    for _ in range(a.runs):
        for name, exe in tools:
            times[name].append(spawn_once(exe))
    print("| command | binary | wheel | `--version`, median | minimum |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, exe in tools:
        size = os.path.getsize(os.path.realpath(exe)) / 1e6
        whl = f"{os.path.getsize(wheels[name]) / 1e6:.1f} MB" if name in wheels else ""
        t = times[name]
        print(
            f"| {name} | {size:.1f} MB | {whl} | {statistics.median(t):.2f} ms | {min(t):.2f} ms |"
        )


if __name__ == "__main__":
    main()
