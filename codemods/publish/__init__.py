"""The publishing side, which holds the write token: it trusts nothing of the
build job but a verdict and a choice, and starts no program but `git` and
`gh`. It imports nothing of the checks wing (tests/test_architecture.py)."""
