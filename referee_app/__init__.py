"""The referee application: vision observations -> inferred actions -> engine verdicts -> page,
LED board and match log. Also holds the `highway-referee` command line."""

__version__ = "0.1.0"
