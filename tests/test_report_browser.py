"""The report page in a real browser: headless system Chromium through Selenium.

It opens reports' index.html as a reviewer would (a file, no server, no network),
and checks that it renders without console errors, that every spec's and
variant's diagram is visible, and that following a counterexample's link
highlights exactly its path on the diagram. Chromium and chromedriver are the
Debian packages (`make browser` installs them); the flags are field-notes §11's.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from models.cli.registry import expand
from models.cli.report import build
from models.cli.results import load

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
    specs = expand([])
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
        section = driver.find_element(By.ID, name.replace(":", "-"))
        figures = section.find_elements(By.CSS_SELECTOR, "figure.diagram svg")
        assert figures, f"{name} has no diagram"
        for svg in figures:
            assert svg.is_displayed() and svg.size["width"] > 100 and svg.size["height"] > 50


def test_a_counterexample_link_highlights_its_path(page: tuple[Any, dict[str, Any]]) -> None:
    from selenium.webdriver.common.by import By

    driver, results = page
    violated = [
        (name, c.id)
        for name, r in results.items()
        for c in r.checks
        if c.verdict == "violated" and c.trace
    ]
    assert len(violated) >= 6  # every variant's expected counterexample
    for name, check in violated:
        key = f"{name}/{check}"
        link = driver.find_element(By.CSS_SELECTOR, f'a.show[data-trace="{key}"]')
        driver.execute_script("arguments[0].scrollIntoView();", link)
        link.click()
        trace = driver.execute_script("return TRACES[arguments[0]];", key)
        figure = driver.find_element(By.ID, trace["figure"])
        lit = {e.get_attribute("id") for e in figure.find_elements(By.CSS_SELECTOR, ".hl")}
        wanted = {
            trace["prefix"] + i
            for step in trace["steps"]
            for i in [*step["nodes"], *([step["edge"]] if step["edge"] else [])]
        }
        assert wanted and lit == wanted, (key, sorted(wanted - lit), sorted(lit - wanted))
        # The steps are numbered on the diagram: the last step's label carries its number.
        last = trace["steps"][-1]["edge"]
        label = figure.find_element(By.ID, trace["prefix"] + last).text
        assert f"#{len(trace['steps']) - 1}" in label
