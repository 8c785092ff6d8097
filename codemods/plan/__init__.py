"""Planning: what to change over a checkout. Runs the recipes' steps on the
files as they are (`runner.plan`), reads the team's configuration and
decisions, tells a migration or an upgrade (`changeover`), and writes all
files or none. It starts none of the checkout's processes itself: the
command line hands it the checks wing's `Tools`."""
