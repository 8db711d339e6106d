"""Bar charts drawn on the server as SVG: no script, no library, no CDN; the table the chart is
drawn from sits beside it (the dashboards' templates), so the chart is an image with a text
equivalent (role="img", its <title> and <desc>).

    >>> svg = bar_chart(["2026-09", "2026-10"], [("Requests", [3, 5])], title="Usage")
    >>> svg.startswith('<svg') and "<title" in svg and svg.count("<rect class=") == 2
    True
"""
from __future__ import annotations

from html import escape

WIDTH, HEIGHT = 720, 280
LEFT, RIGHT, TOP, BOTTOM = 56, 12, 16, 48
# Colours with a contrast of at least 3:1 on white (WCAG 1.4.11, non-text contrast).
COLOURS = ("#1f5f99", "#b54708", "#2e7d32", "#6a1b9a")


def _ceiling(top: int) -> int:
    """A round top for the axis: 1, 2 or 5 times a power of ten, at least `top`.

    >>> _ceiling(0), _ceiling(7), _ceiling(13), _ceiling(480)
    (1, 10, 20, 500)
    """
    step = 1
    while True:
        for factor in (1, 2, 5):
            if step * factor >= top:
                return max(1, step * factor)
        step *= 10


def bar_chart(labels: list[str], series: list[tuple[str, list[int]]], *, title: str,
              description: str = "") -> str:
    """Grouped bars, one group per label, one bar per series, a y axis with 5 ticks."""
    top = _ceiling(max([v for _name, values in series for v in values] or [0]))
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    group = inner_w / max(1, len(labels))
    bar = group * 0.8 / max(1, len(series))
    parts = [f'<svg class="usage-chart" xmlns="http://www.w3.org/2000/svg" role="img"'
             f' viewBox="0 0 {WIDTH} {HEIGHT}" aria-labelledby="chart-title chart-desc">',
             f'<title id="chart-title">{escape(title)}</title>',
             f'<desc id="chart-desc">{escape(description or title)}</desc>']
    for tick in range(6):
        value = top * tick // 5
        y = TOP + inner_h - inner_h * tick / 5
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"'
                     f' stroke="#d0d0d0"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end"'
                     f' font-size="12" fill="#333">{value}</text>')
    for index, label in enumerate(labels):
        x0 = LEFT + group * index + group * 0.1
        for place, (_name, values) in enumerate(series):
            value = values[index] if index < len(values) else 0
            height = inner_h * value / top
            parts.append(f'<rect class="bar-{place}" x="{x0 + bar * place:.1f}"'
                         f' y="{TOP + inner_h - height:.1f}" width="{bar:.1f}"'
                         f' height="{height:.1f}" fill="{COLOURS[place % len(COLOURS)]}"/>')
        parts.append(f'<text x="{LEFT + group * index + group / 2:.1f}" y="{HEIGHT - BOTTOM + 16}"'
                     f' text-anchor="middle" font-size="12" fill="#333">{escape(label)}</text>')
    for place, (name, _values) in enumerate(series):
        x = LEFT + place * 200
        parts.append(f'<rect x="{x}" y="{HEIGHT - 18}" width="12" height="12"'
                     f' fill="{COLOURS[place % len(COLOURS)]}"/>')
        parts.append(f'<text x="{x + 18}" y="{HEIGHT - 8}" font-size="12" fill="#333">'
                     f'{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)
