"""The command line: typer options (`app`) and one module per group of
commands, each of which conducts the wings with a few calls and turns their
values into messages and exit codes."""
