"""Where numba caches the compiled 4x4 search: a user-wide directory named by a hash of the source's
content, so a fresh clone, a second worktree or a reinstall of the same code loads the compiled
search (about 0.2 s) instead of compiling it again (about a minute of CPU).

numba's own locators cache beside the module (`__pycache__`, absent from a fresh clone and not
shared between clones) or under NUMBA_CACHE_DIR / ~/.cache/numba in a folder named by the
source's directory path (a clone elsewhere misses it), and stamp the index with the file's time
before numba 0.68 (a re-created file of the same content misses it). This locator keys both the
folder and the stamp by the content of the compiled module and of the modules whose constants it
freezes into the machine code (engine/grid/paths.py, exact.py), which numba's stamp ignores.
Stale folders of earlier versions stay (about 2 MB each) until removed by hand.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

PREFIX = "highway-referee-grid-"


def content_key(sources: list[Path]) -> str:
    """A hash of the files' content (not their times or places)."""
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def cache_root() -> str:
    """NUMBA_CACHE_DIR where set, else numba's user-wide cache (~/.cache/numba on Linux)."""
    from numba.core import config
    from numba.misc.appdirs import AppDirs

    return config.CACHE_DIR or AppDirs(appname="numba", appauthor=False).user_cache_dir


def install(module_file: str, sources: list[Path]) -> str | None:
    """Make numba cache the functions of `module_file` in cache_root()/PREFIX + content_key(sources),
    ahead of its own locators; the folder, or None where numba's cache API is not the one known
    here (then numba's own locators serve, as before)."""
    try:
        from numba.core import caching

        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
        mixin, base = caching._SourceFileBackedLocatorMixin, caching._CacheLocator
    except (ImportError, AttributeError):
        return None
    key = content_key(sources)
    folder = os.path.join(cache_root(), PREFIX + key)
    own = os.path.abspath(module_file)

    class ContentLocator(mixin, base):  # type: ignore[misc, valid-type]
        def __init__(self, py_func: Any, py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno

        def get_cache_path(self) -> str:
            return folder

        def get_source_stamp(self) -> str:
            return key  # the folder is the content's already

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if os.path.abspath(py_file) != own:
                return None
            locator = cls(py_func, py_file)
            try:
                locator.ensure_cache_path()
            except OSError:  # not writable: numba's own locators
                return None
            return locator

    ContentLocator.__qualname__ = ContentLocator.__name__ = "HighwayGridContentLocator"
    impl._locator_classes = [c for c in impl._locator_classes
                             if c.__name__ != ContentLocator.__name__ or c.__module__ != __name__]
    impl._locator_classes.insert(0, ContentLocator)
    return folder
