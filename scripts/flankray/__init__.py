"""flankray: flank's batch jobs (solve, analyze, selfplay) over Ray workers into a SQLite store.

Layers, lowest first: ``lines`` (reading input files), ``store`` (the SQLite store), ``worker``
(the Ray tasks that run the ``flank`` binary), ``driver`` (scheduling, progress, summary), ``cli``
(the command line). See scripts/flankray/README.md.
"""
