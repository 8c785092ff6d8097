"""The checks wing: the only code that starts the checkout's processes (its
formatter, its generator, its CI checks), each in an allow-listed
environment and a process group of its own (`sandbox`). Its verdict is a
value the command line hands to delivery; the publishing side never
imports this package."""
