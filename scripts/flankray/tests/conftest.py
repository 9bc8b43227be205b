"""Shared fixtures of the driver's tests: the flank binary, the data and a runner for the driver."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
DRIVER = os.path.join(REPO, "scripts", "flank_ray.py")
sys.path.insert(0, os.path.join(REPO, "scripts"))  # the tests import flankray's modules too


@pytest.fixture(scope="session")
def flank() -> str:
    """The flank binary: $FLANK_BIN, else target/release/flank (`cargo build --release`)."""
    path = os.environ.get("FLANK_BIN", os.path.join(REPO, "target", "release", "flank"))
    assert os.access(path, os.X_OK), f"no flank binary at {path}: cargo build --release"
    return path


@pytest.fixture(scope="session")
def data() -> str:
    """$FLANK_DATA (default ../shared/data next to the repository)."""
    path = os.environ.get("FLANK_DATA", os.path.join(REPO, "..", "shared", "data"))
    assert os.path.isdir(os.path.join(path, "endgame")), f"no endgame data under {path}"
    return os.path.abspath(path)


def driver_cmd(flank: str, *args: str) -> list:
    """The driver's command line with a local Ray of 2 workers and no progress bar."""
    return [sys.executable, DRIVER, *args, "--flank", flank, "--workers", "2", "--no-progress"]


@pytest.fixture
def run_driver(flank):
    """Runs the driver to the end; returns the CompletedProcess (text stdout/stderr)."""

    def run(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        return subprocess.run(driver_cmd(flank, *args), capture_output=True, text=True,
                              timeout=timeout)

    return run
