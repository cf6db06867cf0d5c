"""Synthetic Tokyo Highway scenes: a 3D scene model, a pinhole renderer with exact labels, datasets."""

from datasets.tokyo.render import render_tokyo_frame
from datasets.tokyo.scene import random_scene

__all__ = ["render_tokyo_frame", "random_scene"]
