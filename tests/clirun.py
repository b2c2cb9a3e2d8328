"""Run ``citeloom ARGS`` inside the test process, as a subprocess would run it: the given
environment and working directory, its own stdout and stderr (not terminals), warnings
and log records printed to its stderr as Python prints them when nothing is configured,
and the exit code ``main`` returns. Nothing of the command's surroundings outlives it.

A test about the CLI's output or behaviour uses this; a test about processes (a second
process, a killed one, a daemon, the entry point itself) still starts a real one. The
command's code is the same either way: only the interpreter's start, its imports and
model loads (2–8 s a command) are saved.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path


def _print_warning(message, category, filename, lineno, file=None, line=None):  # type: ignore[no-untyped-def]
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def run_cli(args: list[str], env: Mapping[str, str], cwd: Path | str,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
    from citeloom.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    root, ours = logging.getLogger(), logging.getLogger("citeloom")
    saved_logging = (root.handlers[:], root.level, ours.handlers[:], ours.level,
                     ours.propagate)
    try:
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        sys.stdin = io.StringIO(input or "")
        sys.stdout, sys.stderr = out, err
        # As in a fresh interpreter: no handlers, so WARNING and above reach stderr
        # through logging's last resort; Python's warnings printed once each.
        root.handlers[:] = []
        root.setLevel(logging.WARNING)
        ours.handlers[:] = []
        ours.setLevel(logging.NOTSET)
        ours.propagate = True
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.showwarning = _print_warning
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's --help and usage errors
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None
                                                                     else 1)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        root.handlers[:], ours.handlers[:] = saved_logging[0], saved_logging[2]
        root.setLevel(saved_logging[1])
        ours.setLevel(saved_logging[3])
        ours.propagate = saved_logging[4]
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["citeloom", *args], code, out.getvalue(),
                                       err.getvalue())
