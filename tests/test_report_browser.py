"""The report page in a real browser: headless system Chromium through Selenium.

It opens reports' index.html as a reviewer would (a file, no server, no network),
and checks that it renders without console errors, that every spec's and
variant's diagram is visible, and that following a counterexample's link
highlights exactly its path on the diagram. Chromium and chromedriver are the
Debian packages (`make browser` installs them); the flags are field-notes §11's.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from families import swing

from models.cli.registry import expand
from models.cli.report import build
from models.cli.report_cards import anchor
from models.cli.results import load

pytestmark = pytest.mark.slow  # a browser's start alone takes seconds: `make test` only
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

webdriver = pytest.importorskip("selenium.webdriver")
if not (shutil.which(CHROMEDRIVER) and shutil.which(CHROMIUM)):
    pytest.skip(
        "Debian chromium and chromium-driver are not installed (make browser)",
        allow_module_level=True,
    )


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, Any]]]:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    out = tmp_path_factory.mktemp("report")
    specs = [*expand([]), swing()]  # swing: a lasso with a real loop (the seeds' stutters)
    results, origin = load(specs)
    (out / "index.html").write_text(build(specs, results, origin))
    options = Options()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={out / 'profile'}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_window_size(1400, 1000)
        driver.get((out / "index.html").as_uri())
        yield driver, results
    finally:
        driver.quit()


def test_the_page_renders_without_console_errors(page: tuple[Any, dict[str, Any]]) -> None:
    driver, _ = page
    assert driver.title == "statecheck verification report"
    errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == []


def test_every_specs_diagram_is_visible(page: tuple[Any, dict[str, Any]]) -> None:
    from selenium.webdriver.common.by import By

    driver, results = page
    for name in results:
        section = driver.find_element(By.ID, re.sub(r"[^A-Za-z0-9]+", "-", name))
        figures = section.find_elements(By.CSS_SELECTOR, "figure.diagram svg")
        assert figures, f"{name} has no diagram"
        for svg in figures:
            assert svg.is_displayed() and svg.size["width"] > 100 and svg.size["height"] > 50


def _lit(driver: Any, trace: dict[str, Any], k: int) -> tuple[str, str]:
    """The lit element of step `k` (on the figure that draws it: wave is drawn in two
    halves): its id, and its title with its text."""
    found: list[str] = driver.execute_script(
        """
        var fig = document.getElementById(arguments[0].steps[arguments[1]].figure);
        var el = fig.querySelector('g.hl:not(.node)') || fig.querySelector('g.hl');
        if (!el) { return ['', '']; }
        var a = el.querySelector('a'), t = el.querySelector('title');
        var title = a ? a.getAttribute('xlink:title') : (t ? t.textContent : '');
        return [el.id, (title || '') + ' | ' + el.textContent];
        """,
        trace,
        k,
    )
    return found[0], found[1]


def _violated(results: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (name, c.id)
        for name, r in results.items()
        for c in r.checks
        if c.verdict == "violated" and c.trace
    ]


def test_stepping_a_counterexample_lights_each_steps_row(page: tuple[Any, dict[str, Any]]) -> None:
    from selenium.webdriver.common.by import By

    driver, results = page
    violated = _violated(results)
    assert len(violated) >= 6  # every variant's expected counterexample
    systems = {s.name for s in expand([]) if s.system is not None}
    for name, check in violated:
        key = f"{name}/{check}"
        trace = next(c for c in results[name].checks if c.id == check).trace
        link = driver.find_element(By.CSS_SELECTOR, f'a.play[data-trace="{key}"]')
        driver.execute_script("arguments[0].scrollIntoView();", link)
        link.click()
        data = driver.execute_script("return TRACES[arguments[0]];", key)
        path = {
            e.get_attribute("id")
            for f in data["figures"]
            for e in driver.find_element(By.ID, f).find_elements(By.CSS_SELECTOR, ".path")
        }
        wanted = {
            step["prefix"] + i
            for step in data["steps"]
            for i in [*step["nodes"], *([step["edge"]] if step["edge"] else [])]
        }
        system = name in systems
        if system:
            # A system's trace is read on its card's sequence chart, not lit on the picture.
            card = driver.find_element(By.ID, anchor(name, check))
            assert card.find_elements(By.CSS_SELECTOR, "figure.sequence svg"), key
        else:
            assert wanted and path == wanted, (key, sorted(wanted - path), sorted(path - wanted))
        states = trace.states()
        for k in range(len(trace) + 1):
            pos = driver.find_element(By.ID, "pos").text
            assert pos == f"step {k} of {len(trace)}", (key, pos)
            changed = {
                e.find_element(By.TAG_NAME, "th").text.split(" ")[0]
                for e in driver.find_elements(By.CSS_SELECTOR, "#pstate tr.changed")
            }
            assert changed == {v for v, x in states[k].items() if k and states[k - 1][v] != x}
            if k:
                if not system:
                    row = trace.steps[k - 1].row
                    lit, title = _lit(driver, data, k)
                    assert lit and row in title, (key, k, row, lit, title)
                    assert f"#{k} " in title, (key, k, title)  # the step's number on that row
                driver.find_element(By.ID, "next").click() if k < len(trace) else None
            else:
                driver.find_element(By.ID, "next").click()
        loop = data["loop"]
        if loop is None or loop == len(trace):  # a path ends; a stutter stays put
            assert driver.find_element(By.ID, "next").get_attribute("disabled")
        else:  # a lasso goes round: past its last step, back to step `loop`
            driver.find_element(By.ID, "next").click()
            assert driver.find_element(By.ID, "pos").text == f"step {loop} of {len(trace)}"


def test_h1s_abort_is_lit_on_its_own_note_line(page: tuple[Any, dict[str, Any]]) -> None:
    """Issue 19: step 2 of wave:h1 is the abort, folded into a note; "#2" was drawn on
    the note's first line (spawn_replies)."""
    from selenium.webdriver.common.by import By

    driver, results = page
    name = next(n for n in results if n.startswith("wave:h1"))
    check = next(c for c in results[name].checks if c.verdict == "violated" and c.trace)
    assert check.trace is not None and check.trace.steps[1].row == "abort_sets_the_signal"
    driver.get(driver.current_url.split("#")[0] + f"#play={name}/{check.id}/2")
    data = driver.execute_script("return TRACES[arguments[0]];", f"{name}/{check.id}")
    lit, title = _lit(driver, data, 2)
    assert lit.endswith("a_note" + lit.rsplit("a_note", 1)[-1]) and "a_note" in lit
    assert "abort_sets_the_signal" in title and "spawn_replies" not in title
    assert driver.find_element(By.ID, "pos").text == f"step 2 of {len(check.trace)}"


def test_a_fragment_link_opens_that_step(page: tuple[Any, dict[str, Any]]) -> None:
    from selenium.webdriver.common.by import By

    driver, results = page
    name, check = _violated(results)[-1]
    url = driver.current_url.split("#")[0]
    driver.get("about:blank")
    driver.get(url + f"#play={name}/{check}/1")
    assert driver.find_element(By.ID, "player").is_displayed()
    assert driver.find_element(By.ID, "pos").text.startswith("step 1 of ")
    data = driver.execute_script("return TRACES[arguments[0]];", f"{name}/{check}")
    trace = next(c for c in results[name].checks if c.id == check).trace
    lit, title = _lit(driver, data, 1)
    assert trace.steps[0].row in title
    row = driver.find_element(By.ID, "prow").text
    assert row.startswith(f"row {trace.steps[0].row}")
    driver.find_element(By.ID, "close").click()
    assert not driver.find_element(By.ID, "player").is_displayed()


def test_every_check_has_a_card_and_the_filter_hides_proved_ones(
    page: tuple[Any, dict[str, Any]],
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver, results = page
    cards = driver.find_elements(By.CSS_SELECTOR, "details.card")
    assert len(cards) == sum(len(r.checks) for r in results.values())
    proved = [c for c in cards if c.get_attribute("data-verdict") == "proved"]
    assert proved and all(c.get_attribute("open") is None for c in proved)  # collapsed
    verdict = Select(driver.find_element(By.CSS_SELECTOR, "#filter select[name=verdict]"))
    verdict.select_by_visible_text("not proved")
    try:
        assert not any(c.is_displayed() for c in proved)
        others = [c for c in cards if c.get_attribute("data-verdict") != "proved"]
        driver.execute_script("arguments[0].scrollIntoView();", others[0])
        assert others[0].is_displayed()
        shown = driver.find_element(By.CSS_SELECTOR, "#filter output").text
        assert shown == f"{len(others)} of {len(cards)} checks shown"
    finally:
        verdict.select_by_visible_text("all")
    assert proved[0].get_attribute("hidden") is None


def test_a_variants_changed_rows_are_marked(page: tuple[Any, dict[str, Any]]) -> None:
    from selenium.webdriver.common.by import By

    from models.cli.model_diff import row_changes
    from models.cli.model_diff import rows_of
    from models.cli.registry import lookup

    driver, results = page
    name = next(n for n in results if n.startswith("wave:h1"))
    changes = row_changes(rows_of(lookup("wave")), rows_of(lookup(name)))
    section = driver.find_element(By.ID, name.replace(":", "-"))
    listed = section.find_elements(By.CSS_SELECTOR, "div.variant table.changes tbody tr")
    assert [r.find_element(By.TAG_NAME, "b").text for r in listed] == [c.row for c in changes]
    marked: dict[str, set[str]] = driver.execute_script(
        """
        var found = {};
        arguments[0].querySelectorAll('g.edge.added, g.edge.changed, g.edge.removed')
          .forEach(function (g) {
            var kind = ['added', 'changed', 'removed'].filter(function (k) {
              return g.classList.contains(k); })[0];
            var a = g.querySelector('a');
            (found[kind] = found[kind] || []).push(a ? a.getAttribute('xlink:title') : '');
          });
        return found;
        """,
        section,
    )
    drawn = {kind: " ".join(titles) for kind, titles in marked.items()}
    for c in changes:
        kinds = ["removed"] if c.change == "removed" else ["added", "changed"]
        assert any(c.row in drawn.get(k, "") for k in kinds), (c.row, c.change, drawn)
    for svg in section.find_elements(By.CSS_SELECTOR, "g.edge.removed text"):
        assert "\u0336" in svg.text or svg.text.startswith("−")  # struck, not colour alone


def test_labels_are_9pt_or_more_at_1024px_and_the_page_does_not_scroll_sideways(
    page: tuple[Any, dict[str, Any]],
) -> None:
    driver, _ = page
    driver.set_window_size(1024, 900)
    try:
        driver.get(driver.current_url.split("#")[0])
        smallest: list[Any] = driver.execute_script(
            """
            var found = [];
            document.querySelectorAll('figure.diagram svg').forEach(function (svg) {
              var scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
              var least = Infinity;
              svg.querySelectorAll('text').forEach(function (t) {
                least = Math.min(least, parseFloat(t.getAttribute('font-size')) * scale);
              });
              found.push([svg.closest('figure').id, least]);
            });
            return found;
            """
        )
        assert smallest
        # 9 pt is 12 CSS px; the SVG's user unit is the point.
        small = [(fig, round(px * 0.75, 2)) for fig, px in smallest if px * 0.75 < 9 - 0.01]
        assert not small, small
        width = driver.execute_script("return document.documentElement.scrollWidth")
        assert width <= 1024
        titles = driver.execute_script(
            "return Array.from(document.querySelectorAll('figure.diagram g.edge > title'))"
            ".map(function (t) { return t.textContent; });"
        )
        assert titles and all(t.startswith("rows: ") for t in titles), titles[:5]  # not ids
    finally:
        driver.set_window_size(1400, 1000)


def test_a_lasso_plays_round_its_loop(page: tuple[Any, dict[str, Any]]) -> None:
    """Issue 17: the loop is dashed, its last step says where it goes back to, the player
    says which steps repeat, and next past the last step is back at the loop's start."""
    from selenium.webdriver.common.by import By

    driver, results = page
    check = next(c for c in results["swing"].checks if c.id == "finished")
    assert check.loop == 0 and check.trace is not None and len(check.trace) == 2
    url = driver.current_url.split("#")[0]
    driver.get(url + "#play=swing/finished/2")
    data = driver.execute_script("return TRACES['swing/finished'];")
    assert driver.find_element(By.ID, "ploop").text == "loop: steps 0..2 repeat forever"
    lit, title = _lit(driver, data, 2)
    assert "b_to_a" in title and "#2 \u21ba to step 0 " in title, title
    loop = driver.find_elements(By.CSS_SELECTOR, f"#{data['steps'][2]['figure']} g.edge.loop")
    assert {e.get_attribute("id") for e in loop} == {
        data["steps"][k]["prefix"] + data["steps"][k]["edge"] for k in (1, 2)
    }
    next_ = driver.find_element(By.ID, "next")
    assert next_.get_attribute("disabled") is None
    next_.click()
    assert driver.find_element(By.ID, "pos").text == "step 0 of 2"
    assert driver.current_url.endswith("#play=swing/finished/0")
    seed = "wave:seed/eventually-settles"  # a lasso that stutters: no loop to go round
    driver.get(url + f"#play={seed}/1")
    assert driver.find_element(By.ID, "ploop").text == "then it stutters at step 1 forever"
    assert driver.find_element(By.ID, "next").get_attribute("disabled")
    driver.find_element(By.ID, "close").click()
