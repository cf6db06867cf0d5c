"""One module per command family; each defines `register(tree)` (see referee_app/cli.py)."""
