"""``jarvis-memory``, the command line: the commands (``main.py``), their grammar, output
and progress bars, and the keys and users commands."""
