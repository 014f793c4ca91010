"""Every committed diagrams/*.mmd renders with the real Mermaid, in light and dark themes,
and so do a system's views: its diagram and a trace as a `sequenceDiagram`.

The `mermaid` npm package (pinned by tests/mermaid/package-lock.json, installed
with `npm ci` by `make test` and `make verify`) runs in the system Chromium, as
the report's browser test does. A parse error fails the test; so does a node
whose label has a contrast below 4.5:1 on its fill (a class that sets a fill
but not a text colour fades in the dark theme), and a transition whose label
does not say who decides it. A system's sequence chart must show every lifeline, every
message and its fault box.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
MERMAID = ROOT / "tests" / "mermaid" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
DIAGRAMS = sorted((ROOT / "diagrams").glob("*.mmd"))
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

webdriver = pytest.importorskip("selenium.webdriver")
if not (shutil.which(CHROMEDRIVER) and shutil.which(CHROMIUM)):
    pytest.skip("Debian chromium and chromium-driver are not installed", allow_module_level=True)
if not MERMAID.exists():
    pytest.skip(
        "the mermaid npm package is not installed (make mermaid)",
        allow_module_level=True,
    )


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    out = tmp_path_factory.mktemp("mermaid")
    page = out / "index.html"
    page.write_text(
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><script src="{MERMAID.as_uri()}">'
        "</script></head><body></body></html>"
    )
    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={out / 'p'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_script_timeout(60)
        driver.get(page.as_uri())
        yield driver
    finally:
        driver.quit()


RENDER = r"""
var done = arguments[arguments.length - 1];
mermaid.initialize({startOnLoad: false, theme: arguments[1], securityLevel: 'strict'});
mermaid.render('d' + Math.floor(Math.random() * 1e9), arguments[0]).then(function (r) {
  var box = document.createElement('div'); box.innerHTML = r.svg; document.body.appendChild(box);
  function rgb(c) { var m = /rgba?\(([\d.]+), ([\d.]+), ([\d.]+)/.exec(c);
    return m ? [+m[1], +m[2], +m[3]] : null; }
  function lum(c) { return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]); }
  function lin(v) {
    v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  }
  var labels = [];
  box.querySelectorAll('g.node').forEach(function (g) {
    var t = g.querySelector('.nodeLabel') || g.querySelector('text');
    var shape = g.querySelector('rect, path, polygon');
    if (!t || !t.textContent.trim() || !shape) { return; }
    var fg = rgb(getComputedStyle(t).color || getComputedStyle(t).fill);
    var bg = rgb(getComputedStyle(shape).fill);
    if (!fg || !bg) { return; }
    var a = lum(fg) + 0.05, b = lum(bg) + 0.05;
    labels.push([t.textContent.trim(), Math.max(a, b) / Math.min(a, b)]);
  });
  var edges = Array.from(box.querySelectorAll('.edgeLabel')).map(function (e) {
    return e.textContent;
  });
  box.remove();
  done({ok: true, labels: labels, edges: edges});
}, function (err) { done({ok: false, error: String(err && err.message || err)}); });
"""


@pytest.mark.parametrize("theme", ["default", "dark"])
@pytest.mark.parametrize("path", DIAGRAMS, ids=[p.name for p in DIAGRAMS])
def test_every_mmd_renders(browser: Any, path: Path, theme: str) -> None:
    text = path.read_text()
    result = browser.execute_async_script(RENDER, text, theme)
    assert result["ok"], f"{path.name} ({theme}): {result.get('error')}"
    assert result["labels"], f"{path.name}: no node drawn"
    # Every class sets its text colour: no label fades into its fill in either theme.
    faint = [(text, round(ratio, 2)) for text, ratio in result["labels"] if ratio < 4.5]
    assert not faint, f"{path.name} ({theme}): labels below 4.5:1 on their fill: {faint[:5]}"
    if "by " in text:
        edges = [e for e in result["edges"] if e.strip()]
        assert edges and all(e.startswith("by ") for e in edges), json.dumps(edges[:5])


TEXTS = r"""
var done = arguments[arguments.length - 1];
mermaid.initialize({startOnLoad: false, theme: arguments[1], securityLevel: 'strict'});
mermaid.render('s' + Math.floor(Math.random() * 1e9), arguments[0]).then(function (r) {
  var box = document.createElement('div'); box.innerHTML = r.svg; document.body.appendChild(box);
  var texts = Array.from(box.querySelectorAll('text, foreignObject')).map(function (t) {
    return t.textContent.trim();
  });
  box.remove();
  done({ok: true, texts: texts});
}, function (err) { done({ok: false, error: String(err && err.message || err)}); });
"""


def _system_views() -> list[tuple[str, str, list[str]]]:
    """(name, Mermaid text, texts the rendering must show) for each system view that is not
    a committed file: the plant's diagram (tests/systems.py) and its lost-message trace."""
    from systems import SYSTEM
    from systems import trace_of

    from models.kernel.diagram import pictures
    from models.kernel.mermaid import mermaid_source
    from models.kernel.mermaid import sequence_source
    from models.kernel.sequence import chart

    lost = chart(
        SYSTEM,
        trace_of("ctl_on", "link_deliver_START__dev_run__lamp_light", "ctl_off", "link_lose"),
        "plant: a lost STOP",
        "the device keeps running",
    )
    return [
        ("plant diagram", mermaid_source(pictures(SYSTEM)[0]), ["IDLE", "BROKEN"]),
        (
            "plant sequence chart",
            sequence_source(lost),
            ["environment", "link (FIFO of 1)", "4. STOP", "[fault 4: lost]", "[START]"],
        ),
    ]


@pytest.mark.parametrize("theme", ["default", "dark"])
def test_a_systems_views_render(browser: Any, theme: str) -> None:
    for name, text, shown in _system_views():
        result = browser.execute_async_script(TEXTS, text, theme)
        assert result["ok"], f"{name} ({theme}): {result.get('error')}"
        missing = [s for s in shown if not any(s in t for t in result["texts"])]
        assert not missing, f"{name} ({theme}): not drawn: {missing}"
