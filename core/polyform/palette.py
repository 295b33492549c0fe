"""What every picture of a solution shares: a colour per placed piece, and text made
safe for SVG."""
from __future__ import annotations

import colorsys


def colour(n: int, total: int) -> str:
    """The fill of the ``n``-th placed piece: hues a golden angle apart, lightness
    alternating."""
    h = (n * 0.618033988749895) % 1.0
    l = 0.62 if n % 2 else 0.72
    r, g, b = colorsys.hls_to_rgb(h, l, 0.65)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def esc(s: str) -> str:
    """``s`` escaped for SVG text."""
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
