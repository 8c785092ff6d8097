from .support import host_tree  # noqa: F401  (fixture)
