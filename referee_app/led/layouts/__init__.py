"""Bundled LED layouts, one JSON file per game (kept a package so the files install with it)."""
