"""`mesh-codemod` and `python -m codemods`."""

import sys


def main() -> None:
    from .fastpath import parse

    command = parse(sys.argv[1:])
    if command is not None:
        sys.exit(command())
    from .cli import app

    app(prog_name="mesh-codemod")


if __name__ == "__main__":
    main()
