"""Charts drawn on the server as SVG text: a line over time, horizontal bars, an
estimate's band beside what was found, a grid of what every solution agrees on.

Pure functions of numbers and labels (no ledger, no web framework), so a picture is
tested as text; every label goes through :func:`xml.sax.saxutils.escape`.  No
JavaScript and nothing from a CDN: a chart is an ``<img>`` the page reloads.
"""
from __future__ import annotations

from typing import Sequence
from xml.sax.saxutils import escape, quoteattr

WIDTH, HEIGHT = 560, 220
#: room for the axes' labels: left, right, top, bottom
PAD = (64, 16, 14, 34)
INK, GRID, LINE, BAR, BAND = "#222222", "#dddddd", "#1f5fbf", "#4f8fdf", "#cfe0f7"


def number_text(v: float) -> str:
    """A short label: 1.2k, 3.4M, 5G; below a thousand the whole number, below a hundred up
    to 3 significant digits."""
    a = abs(v)
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if a >= scale:
            return f"{v / scale:.3g}{unit}"
    return f"{v:.0f}" if a >= 100 else f"{v:.3g}"


def _open(width: int, height: int, title: str) -> list[str]:
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11" role="img">',
            f"<title>{escape(title)}</title>",
            f'<rect width="{width}" height="{height}" fill="#ffffff"/>']


def _text(x: float, y: float, s: str, anchor: str = "start", fill: str = INK) -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" fill="{fill}">{escape(s)}</text>'


def empty_chart(title: str, message: str, width: int = WIDTH, height: int = 80) -> str:
    """A chart with nothing to draw yet: its title and why."""
    return "\n".join(_open(width, height, title) + [_text(8, 18, title), _text(8, 44, message, fill="#777777"),
                                                     "</svg>"])


def line_chart(points: Sequence[tuple[float, float]], *, title: str, x_label: str, y_label: str,
               y_max: float | None = None, width: int = WIDTH, height: int = HEIGHT) -> str:
    """``points`` (x, y) joined by a line, with four grid lines and labelled axes."""
    if len(points) < 2:
        return empty_chart(title, "not enough finished subproblems yet", width)
    left, right, top, bottom = PAD
    x_hi = max(x for x, _ in points) or 1.0
    y_hi = y_max if y_max is not None else (max(y for _, y in points) or 1.0)
    pw, ph = width - left - right, height - top - bottom - 14

    def px(x: float) -> float:
        return left + pw * x / x_hi

    def py(y: float) -> float:
        return top + 14 + ph * (1 - y / y_hi)

    out = _open(width, height, title) + [_text(left, top + 4, title)]
    for i in range(5):
        y = y_hi * i / 4
        out.append(f'<line x1="{left}" y1="{py(y):.1f}" x2="{width - right}" y2="{py(y):.1f}" stroke="{GRID}"/>')
        out.append(_text(left - 6, py(y) + 4, number_text(y), "end"))
    for i in range(5):
        x = x_hi * i / 4
        out.append(_text(px(x), height - bottom + 14, number_text(x), "middle"))
    out.append(_text(left + pw / 2, height - 4, x_label, "middle"))
    out.append(f'<text transform="translate(12 {top + 14 + ph / 2:.1f}) rotate(-90)" text-anchor="middle" '
               f'fill="{INK}">{escape(y_label)}</text>')
    path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in points)
    out.append(f'<polyline points="{path}" fill="none" stroke="{LINE}" stroke-width="2"/>')
    out.append("</svg>")
    return "\n".join(out)


def bar_chart(bars: Sequence[tuple[str, float]], *, title: str, unit: str, width: int = WIDTH) -> str:
    """Horizontal bars, one per (label, value), the value written at the bar's end."""
    if not bars:
        return empty_chart(title, "no finished subproblems yet", width)
    row, left, top = 18, 150, 24
    height = top + row * len(bars) + 8
    hi = max(v for _, v in bars) or 1.0
    pw = width - left - 90
    out = _open(width, height, title) + [_text(8, 14, title)]
    for i, (label, value) in enumerate(bars):
        y = top + i * row
        w = max(1.0, pw * value / hi) if value else 0.0
        out.append(_text(left - 6, y + 12, label, "end"))
        out.append(f'<rect x="{left}" y="{y + 2}" width="{w:.1f}" height="{row - 5}" fill="{BAR}"/>')
        out.append(_text(left + w + 4, y + 12, f"{number_text(value)} {unit}"))
    out.append("</svg>")
    return "\n".join(out)


def estimate_chart(*, low: float, estimate: float, high: float, found: float | None, unit: str,
                   width: int = WIDTH) -> str:
    """The estimate's 95% band and value on one axis, with what the run searched so far."""
    title = "estimate against what the run searched"
    height, left, right, y = 84, 16, 16, 40
    hi = max(high, estimate, found or 0.0) * 1.1 or 1.0
    pw = width - left - right

    def px(v: float) -> float:
        return left + pw * v / hi

    out = _open(width, height, title) + [_text(8, 14, title)]
    out.append(f'<line x1="{left}" y1="{y}" x2="{width - right}" y2="{y}" stroke="{GRID}" stroke-width="2"/>')
    out.append(f'<rect x="{px(low):.1f}" y="{y - 9}" width="{max(2.0, px(high) - px(low)):.1f}" height="18" '
               f'fill="{BAND}"><title>95% band {escape(number_text(low))}..{escape(number_text(high))}</title></rect>')
    out.append(f'<line x1="{px(estimate):.1f}" y1="{y - 12}" x2="{px(estimate):.1f}" y2="{y + 12}" stroke="{LINE}" '
               f'stroke-width="3"/>')
    out.append(_text(px(estimate), y + 26, f"estimate {number_text(estimate)} {unit}", "middle", LINE))
    if found is not None:
        out.append(f'<line x1="{px(found):.1f}" y1="{y - 14}" x2="{px(found):.1f}" y2="{y + 14}" stroke="#c0392b" '
                   f'stroke-width="3"/>')
        out.append(_text(px(found), y - 18, f"searched {number_text(found)} {unit}", "middle", "#c0392b"))
    out.append("</svg>")
    return "\n".join(out)


#: the summary picture's squares: black in every grid, white in every grid, differing
SUMMARY_FILL = {"#": "#000000", ".": "#ffffff", "?": "#f2c94c"}


SUMMARY_LEGEND = "black: in every grid · white: in every grid · yellow: differs"


def summary_grid(picture: str | Sequence[str], *, title: str, legend: str = SUMMARY_LEGEND, cell: int = 22) -> str:
    """A crossword summary (rows of ``#`` black in every grid, ``.`` white in every grid,
    ``?`` differs) as squares; ``legend`` under it."""
    rows = picture.splitlines() if isinstance(picture, str) else list(picture)
    cols = max((len(r) for r in rows), default=0)
    width, height = max(cols * cell + 2, 6 * len(legend) + 8), len(rows) * cell + 2 + 24
    out = _open(width, height, title)
    for r, line in enumerate(rows):
        for c, ch in enumerate(line):
            fill = SUMMARY_FILL.get(ch, "#ffffff")
            out.append(f'<rect x="{1 + c * cell}" y="{1 + r * cell}" width="{cell}" height="{cell}" '
                       f'fill={quoteattr(fill)} stroke="#888888"/>')
    y = len(rows) * cell + 18
    out.append(_text(1, y, legend))
    out.append("</svg>")
    return "\n".join(out)
