"""The accessibility check the browser tests run on each page they reach finds what it must."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import assert_accessible

pytestmark = pytest.mark.integration


async def test_the_accessibility_check_fails_on_a_critical_violation(new_page: Any) -> None:
    page = await new_page()
    await page.set_content(
        '<html lang="en"><title>t</title><main><button type="button"></button></main></html>'
    )
    with pytest.raises(AssertionError, match="button-name"):
        await assert_accessible(page, "a nameless button")
    await page.set_content(
        '<html lang="en"><title>t</title><main><button type="button">Go</button></main></html>'
    )
    await assert_accessible(page, "a named button")
