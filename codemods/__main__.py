"""`mesh-codemod` and `python -m codemods`."""

import os
import sys


def main() -> None:
    import gc

    # The everyday commands are short-lived processes that make few cycles;
    # the collector's passes over the many objects the imports create cost
    # a few percent of a run, and nothing is gained by them.
    gc.disable()
    from .cli.fastpath import parse

    command = parse(sys.argv[1:])
    if command is not None:
        code = command()
        # The interpreter's teardown frees every module, tree and object
        # one by one, a few milliseconds of a run that holds nothing to
        # release: no open files, no temporary folders (closed by their
        # `with`), no exit handlers. Flush what was printed and leave.
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BrokenPipeError:
            pass  # the reader is gone (`| head`): nothing more to say
        os._exit(code)
    gc.enable()  # typer's commands (pr, verify) can run for minutes
    from .cli.app import app

    app(prog_name="mesh-codemod")


if __name__ == "__main__":
    main()
