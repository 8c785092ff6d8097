"""Delivery: a plan becomes a series of commits made from git objects, patch
files, a branch moved with a lease, and a PR body and title in the target
repository's conventions. It never imports the checks wing: it takes their
verdict as a value."""
