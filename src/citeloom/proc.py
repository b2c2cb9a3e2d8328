"""Process helpers shared by modules that clean up after processes that are gone."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (one of another user's counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
