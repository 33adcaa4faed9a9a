"""Browser tests: Playwright driving Debian's chromium against the real app on a loopback port.

Playwright's own browser download cannot work here, so the browser is the system's chromium
(``.ci/run`` installs it when it is missing); these tests skip, saying why, only when no chromium
can be found at all. Screenshots go to ``.artifacts/browser/`` (git-ignored); with
``PLAYLOG_UPDATE_SCREENSHOTS=1`` one of each page (both widths) is also written to ``docs/screenshots/``.
Every screenshot is also an accessibility check: axe-core (every rule, the copy the pinned
``axe-playwright-python`` ships) must find nothing serious or critical on the page as it stands.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / ".artifacts" / "browser"
DOCS_SCREENSHOTS = ROOT / "docs" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 812}
# The pages (and table states) docs/pages.md and the README show.
DOCUMENTED = {
    "home",
    "play",
    "play-nope",
    "play-favor",
    "play-defuse",
    "play-a-risk-cat",
    "play-a-risk-cat-stop",
    "watch",
    "moderate",
    "replay",
    "dispute",
}


def chromium_path() -> str | None:
    for candidate in (os.environ.get("PLAYLOG_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Any]:
    path = chromium_path()
    if path is None:
        pytest.skip("no chromium found (/usr/bin/chromium, PATH, PLAYLOG_CHROMIUM): apt-get install chromium")
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
        try:
            yield launched
        finally:
            await launched.close()


@pytest.fixture
async def new_page(browser: Any) -> AsyncIterator[Any]:
    """``await new_page()``: a page in a browser context of its own (its own sessionStorage),
    failing the test on any JavaScript error, dialog (an injected ``alert``) or CSP violation."""
    contexts: list[Any] = []
    errors: list[str] = []

    async def make(viewport: dict[str, int] | None = None) -> Any:
        context = await browser.new_context(viewport=viewport or DESKTOP)
        context.set_default_timeout(20_000)
        contexts.append(context)
        page = await context.new_page()
        page.on("pageerror", lambda error: errors.append(f"page error: {error}"))

        def console(message: Any) -> None:
            if message.type == "error" and "Content Security Policy" in message.text:
                errors.append(f"CSP: {message.text}")

        page.on("console", console)

        async def refuse_dialog(dialog: Any) -> None:
            errors.append(f"dialog: {dialog.message}")
            await dialog.dismiss()

        page.on("dialog", refuse_dialog)
        return page

    yield make
    for context in contexts:
        await context.close()
    assert not errors, errors


AXE_BLOCKING = {"serious", "critical"}


async def assert_accessible(page: Any, state: str) -> None:
    """axe-core, all rules, finds no serious or critical violation on ``page`` as it stands."""
    from axe_playwright_python.async_playwright import Axe  # type: ignore[import-untyped]

    results = await Axe().run(page, options={"resultTypes": ["violations"]})
    found = [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v.get("impact") in AXE_BLOCKING
    ]
    assert not found, f"axe on {state} at {page.viewport_size['width']} px: {found}"


async def screenshot(page: Any, name: str, *, full_page: bool = True) -> None:
    """The page at desktop width and at 375 px, as artifacts (and docs' copies when asked), each
    checked by axe first; ``full_page=False``: the first screen only (what fits without scrolling)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    for label, viewport in (("desktop", DESKTOP), ("375px", PHONE)):
        await page.set_viewport_size(viewport)
        await assert_accessible(page, name)
        target = ARTIFACTS / f"{name}-{label}.png"
        await page.screenshot(path=str(target), full_page=full_page)
        if os.environ.get("PLAYLOG_UPDATE_SCREENSHOTS") and name in DOCUMENTED:
            DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(target, DOCS_SCREENSHOTS / target.name)
    await page.set_viewport_size(size)
