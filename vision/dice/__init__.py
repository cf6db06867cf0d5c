"""Reading six-sided pip dice: find every die, its top-face value, its colour class (see reader.py)."""
