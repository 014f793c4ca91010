"""Text contrast of at least 4.5:1 (WCAG AA), read from the report's CSS and the diagrams.

Every `color` in the report's stylesheet is measured against the background its
rule sets (white when it sets none), and every text colour the diagrams use
(`fontcolor`, `<FONT COLOR>`) against white and the node fills they sit on.
"""

from __future__ import annotations

import re
from pathlib import Path

from models.cli.report_assets import CSS
from models.kernel import diagram

ROOT = Path(__file__).resolve().parent.parent
FILLS = ("#FFFFFF", "#F2F2F2", "#FFF4CC")  # the page, an outcome arm, a provisional state


def contrast(a: str, b: str) -> float:
    def lum(h: str) -> float:
        h = h.lstrip("#")
        if len(h) == 3:
            h = "".join(c * 2 for c in h)
        rgb = [int(h[i : i + 2], 16) / 255 for i in (0, 2, 4)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_contrast_measure_is_wcags() -> None:
    assert round(contrast("#000000", "#FFFFFF"), 1) == 21.0
    assert round(contrast("#777777", "#FFFFFF"), 2) == 4.48  # WCAG's own borderline grey


def test_every_text_colour_in_the_reports_css_reaches_4_5() -> None:
    rules = re.findall(r"([^{}]+)\{([^}]*)\}", CSS)
    measured = 0
    for selector, body in rules:
        colour = re.search(r"(?<![-\w])color:(#[0-9A-Fa-f]{3,6})", body)
        if not colour:
            continue
        back = re.search(r"background(?:-color)?:(#[0-9A-Fa-f]{3,6})", body)
        ratio = contrast(colour.group(1), back.group(1) if back else "#FFFFFF")
        assert ratio >= 4.5, (selector.strip(), colour.group(1), round(ratio, 2))
        measured += 1
    assert measured >= 10


def test_every_text_colour_in_the_diagrams_reaches_4_5() -> None:
    used = set()
    drawn = sorted((ROOT / "diagrams").glob("*.dot"))
    assert {"wave-front.dot", "wave-back.dot"} <= {d.name for d in drawn}  # wave's halves
    for dot in drawn:
        text = dot.read_text()
        used |= set(re.findall(r'fontcolor="?(#[0-9A-Fa-f]{6})', text))
        used |= set(re.findall(r'<FONT COLOR="(#[0-9A-Fa-f]{6})"', text))
    used |= {*diagram.COLOURS, diagram.GREY, diagram.TRACE, *diagram.VERDICT_COLOURS.values()}
    assert len(used) >= 6
    for colour in sorted(used):
        for fill in FILLS:
            assert contrast(colour, fill) >= 4.5, (colour, fill, round(contrast(colour, fill), 2))


def test_deciders_differ_by_line_style_not_colour_alone() -> None:
    assert len(set(diagram.STYLES[:4])) == 4  # solid, dashed, dotted, bold
