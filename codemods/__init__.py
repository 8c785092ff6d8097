"""mesh-codemod: adds deep-link app state to Studio (decocms/mesh)."""

__version__ = "0.7.1"
