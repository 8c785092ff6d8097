"""The engine: parse, find, ensure, edit, diff. It knows nothing about mesh."""
