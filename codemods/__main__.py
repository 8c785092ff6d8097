"""`mesh-codemod` and `python -m codemods`."""


def main() -> None:
    from .cli.app import app

    app(prog_name="mesh-codemod")


if __name__ == "__main__":
    main()
