"""`mesh-codemod` and `python -m codemods`."""

import sys


def main() -> None:
    import gc

    # The everyday commands are short-lived processes that make few cycles;
    # the collector's passes over the many objects the imports create cost
    # a few percent of a run, and nothing is gained by them.
    gc.disable()
    from .fastpath import parse

    command = parse(sys.argv[1:])
    if command is not None:
        sys.exit(command())
    gc.enable()  # typer's commands (pr, verify) can run for minutes
    from .cli import app

    app(prog_name="mesh-codemod")


if __name__ == "__main__":
    main()
