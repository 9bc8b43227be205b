#!/usr/bin/env python3
"""Runs flank's batch jobs (solve, analyze, selfplay) over Ray workers into a SQLite store: the
entry point of scripts/flankray (see its README.md)."""

import sys

from flankray.cli import main

if __name__ == "__main__":
    sys.exit(main())
