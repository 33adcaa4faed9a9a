"""The dispute pages: a seat raises a dispute from its play page, a moderator works it from the
queue and the dispute page (with the replay at the disputed event), and the ruling shows on the
seats' pages; typed texts stay inert; without a moderator token the pages show nothing."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import pytest
from playwright.async_api import Page, expect

from service.config import Settings
from service.tools.client import PlaylogClient
from tests.browser.conftest import screenshot
from tests.browser.pages import finished_game, moderator_token

pytestmark = pytest.mark.integration

EVIL = "<img src=x onerror=alert(1)>"
REASON = f"alice drew twice {EVIL}"
# The queue is a read model a moment behind the log, and its page refreshes every 5 s: a dispute
# raised just before the page opened can take one refresh to show.
QUEUE_WAIT = 15_000


@pytest.fixture
async def remote(server_url: str) -> AsyncIterator[PlaylogClient]:
    async with PlaylogClient(server_url) as client:
        yield client


async def raise_from_play_page(page: Page, server_url: str, game_id: str, token: str) -> int:
    """Bob raises a rules dispute about alice's first draw; returns that event's number."""
    await page.goto(f"{server_url}/play/{game_id}/1#token={token}")
    await expect(page.locator("#status")).to_contain_text("Game over")
    drawn = page.locator("#feed li", has_text="alice drew a card").first
    seq = int(await drawn.get_attribute("data-seq") or "0")
    await page.get_by_text("Raise a dispute").click()
    await page.get_by_label("Events concerned").fill(str(seq))
    await page.get_by_label("Category").select_option("rules")
    await page.get_by_label("What went wrong").fill(REASON)
    await page.get_by_role("button", name="Raise the dispute").click()
    await expect(page.locator("#dispute-status")).to_contain_text("Your dispute was raised")
    mine = page.locator("#dispute-list li.dispute")
    await expect(mine).to_contain_text("Your rules dispute · waiting for a moderator")
    await expect(mine).to_contain_text(f"Events: {seq}")
    await expect(mine).to_contain_text(REASON)  # as text: the markup shows, inert
    return seq


async def open_with_token(page: Page, url: str, token: str) -> None:
    await page.goto(url)
    await page.get_by_label("Moderator token").fill(token)
    await page.get_by_role("button", name="Open").click()


async def test_a_dispute_goes_from_the_play_page_through_the_moderator_pages_to_a_ruling(
    server_url: str, remote: PlaylogClient, settings: Settings, new_page: Any
) -> None:
    game_id, tokens = await finished_game(remote, public=False)
    mod_token = moderator_token(settings)
    bob = await new_page()
    seat_number = await raise_from_play_page(bob, server_url, str(game_id), tokens[1])

    # The queue: the moderator claims it there, then opens it.
    mod = await new_page()
    await open_with_token(mod, f"{server_url}/moderate/disputes", mod_token)
    assert mod_token not in mod.url
    row = mod.locator("#queue-list li.dispute").first
    await expect(row).to_contain_text("rules dispute", timeout=QUEUE_WAIT)
    await expect(row).to_contain_text("waiting for a moderator")
    # Each row says whose game, who raised it, why (a snippet, as text) and how long ago.
    await expect(row).to_contain_text("Exploding Kittens: alice (seat 0) vs bob (seat 1)")
    await expect(row).to_contain_text(re.compile(r"raised (just now|\d+ min ago) by bob \(seat 1\)"))
    await expect(row.locator("q.reason")).to_have_text(REASON)
    await mod.get_by_label("Status").select_option("open")
    await mod.get_by_role("button", name="Filter").click()
    await expect(mod).to_have_url(re.compile(r"status=open"))
    await expect(row).to_contain_text("rules dispute")
    await screenshot(mod, "disputes")
    await row.get_by_role("button", name=re.compile("^Claim")).click()  # and on to its page
    await expect(mod).to_have_url(re.compile(r"/moderate/disputes/[0-9a-f-]{36}$"))
    dispute_id = mod.url.rsplit("/", 1)[1]

    # The dispute page: the facts, the reason as text, the replay opened at the disputed event.
    facts = mod.locator("#facts")
    await expect(facts).to_contain_text(REASON)
    await expect(facts).to_contain_text("claimed by mod")
    await expect(facts).to_contain_text("bob (seat 1)")
    async with httpx.AsyncClient(
        base_url=server_url, headers={"Authorization": f"Bearer {mod_token}"}
    ) as http:
        detail = (await http.get(f"/moderation/disputes/{dispute_id}")).json()
    log_seq = detail["dispute"]["seqs"][0]  # the seat's number, as the log numbers it
    # Both numbers, for the moderator only: the log's and the seat's own.
    await expect(facts).to_contain_text(f"log seq {log_seq} (bob (seat 1)'s event {seat_number})")
    evidence_first = await mod.evaluate(
        "document.getElementById('disputed-title').compareDocumentPosition(document.getElementById('work-title'))"
    )
    assert evidence_first & 4  # the ruling form follows the evidence
    at = mod.locator("#at")
    await expect(at).to_contain_text(f"(seq {log_seq}): card drawn")
    await expect(at).to_contain_text(f"bob (seat 1) {seat_number} · disputed")  # the seat's own number beside
    await expect(mod.locator("#state")).to_contain_text("Hand (face up)")
    await expect(mod.locator("#event")).to_contain_text("By alice (seat 0) · at ")  # never "seat:0"
    await mod.locator("body").focus()
    await mod.keyboard.press("ArrowRight")
    await expect(at).to_contain_text(f"(seq {log_seq + 1})")
    await expect(at).not_to_contain_text("disputed")
    await mod.keyboard.press("Home")
    await mod.get_by_role("button", name=f"Replay at seq {log_seq}").click()
    await expect(at).to_contain_text(f"(seq {log_seq}): card drawn")
    await expect(at).to_contain_text(f"bob (seat 1) {seat_number} · disputed")  # the seat's own number beside
    disputed = mod.locator("#disputed")
    await expect(disputed).to_contain_text(f"Seq {log_seq}")
    await disputed.locator("summary").first.click()  # the complete state before and after it
    await expect(disputed.get_by_role("heading", name="Before")).to_be_visible()
    await expect(disputed).to_contain_text("Draw pile, top first")

    # Work on it: a note, a question the seat answers on its play page.
    await mod.get_by_label("Note (read by moderators only)").fill("Checking the pile before the draw.")
    await mod.get_by_role("button", name="Add the note").click()
    history = mod.locator("#history")
    await expect(history).to_contain_text("mod noted: Checking the pile before the draw.")
    await mod.get_by_label("Ask a seat").select_option("1")
    await mod.get_by_label("Question (the seat sees it on its page)").fill("Which draw do you mean?")
    await mod.get_by_role("button", name="Ask", exact=True).click()
    await expect(history).to_contain_text("mod asked bob (seat 1): Which draw do you mean?")

    mine = bob.locator("#dispute-list li.dispute")
    await expect(mine).to_contain_text("Which draw do you mean?")
    await expect(mine).not_to_contain_text("Checking the pile")  # notes are the moderators' own
    await bob.get_by_label("Your answer to the moderator").fill(f"Her first one {EVIL}")
    await bob.get_by_role("button", name="Send the answer").click()
    await expect(mine).to_contain_text(f"bob (seat 1) answered: Her first one {EVIL}")
    await expect(bob.get_by_label("Your answer to the moderator")).to_have_count(0)
    await expect(history).to_contain_text(f"bob (seat 1) answered: Her first one {EVIL}")

    # The ruling: upheld, the win awarded to bob; every page shows the ruled outcome.
    await mod.get_by_role("radio", name="Upheld").check()
    await mod.get_by_label("Action (when upheld)").select_option("award")
    await mod.locator("#resolve-seats").get_by_label("bob (seat 1)").check()
    await mod.get_by_label("Explanation (public: every player sees it)").fill(
        "The replay shows a second draw."
    )
    await mod.get_by_role("button", name="Rule").click()
    await expect(facts).to_contain_text("Upheld: the win goes to bob (seat 1)")
    ruled = "Winner as ruled by a moderator: bob (seat 1) (originally: alice (seat 0))"
    await expect(mod.locator("#game-facts")).to_contain_text(ruled)
    await expect(mod.locator("#resolve-form")).to_be_hidden()
    await expect(mod.locator("#review-form")).to_be_visible()
    await screenshot(mod, "dispute")

    await expect(bob.locator("#status")).to_contain_text(ruled)
    await expect(mine).to_contain_text("Upheld: the win goes to bob (seat 1)")
    await expect(mine).to_contain_text("The replay shows a second draw.")
    await screenshot(bob, "play-dispute")

    # The other seat sees that a dispute exists and its verdict, not the reason.
    alice = await new_page()
    await alice.goto(f"{server_url}/play/{game_id}/0#token={tokens[0]}")
    theirs = alice.locator("#dispute-list li.dispute")
    await expect(theirs).to_contain_text("A rules dispute · resolved")
    await expect(theirs).to_contain_text("Upheld: the win goes to bob (seat 1)")
    await expect(alice.locator("#status")).to_contain_text(ruled)
    assert "alice drew twice" not in await alice.content()

    for page in (bob, mod, alice):  # every typed text stayed text
        assert await page.locator("img").count() == 0


async def test_a_refusal_shows_the_servers_message(
    server_url: str, remote: PlaylogClient, settings: Settings, new_page: Any
) -> None:
    game_id, tokens = await finished_game(remote, public=False)
    bob = await new_page()
    await raise_from_play_page(bob, server_url, str(game_id), tokens[1])
    mod = await new_page()
    await open_with_token(mod, f"{server_url}/moderate/disputes", moderator_token(settings))
    await mod.locator("#queue-list li.dispute a").first.click(timeout=QUEUE_WAIT)
    await mod.get_by_label("Ask a seat").select_option("1")
    await mod.get_by_label("Question (the seat sees it on its page)").fill("Unclaimed?")
    await mod.get_by_role("button", name="Ask", exact=True).click()  # nobody claimed it yet
    await expect(mod.locator("#action-problem")).to_contain_text("(dispute_not_claimed)")


async def test_the_queue_shows_a_dispute_raised_after_it_was_opened(
    server_url: str, remote: PlaylogClient, settings: Settings, new_page: Any
) -> None:
    game_id, tokens = await finished_game(remote, public=False)
    mod = await new_page()
    await open_with_token(mod, f"{server_url}/moderate/disputes", moderator_token(settings))
    await expect(mod.locator("#count")).not_to_be_empty()
    raised = await remote.http.post(
        f"/games/{game_id}/disputes",
        json={"seqs": [1], "category": "other", "reason": "raised while the queue was open"},
        headers={"Authorization": f"Bearer {tokens[1]}"},
    )
    assert raised.status_code == 201, raised.text
    dispute_id = raised.json()["dispute_id"]
    row = mod.locator(f'#queue-list li.dispute[data-dispute-id="{dispute_id}"]')
    await expect(row).to_contain_text("waiting for a moderator", timeout=QUEUE_WAIT)  # no reload


async def test_the_dispute_pages_show_nothing_without_a_moderator_token(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    game_id, tokens = await finished_game(remote, public=False)
    bob = await new_page()
    await raise_from_play_page(bob, server_url, str(game_id), tokens[1])
    items = (
        await remote.http.get(f"/games/{game_id}/disputes", headers={"Authorization": f"Bearer {tokens[1]}"})
    ).json()
    dispute_id = items["items"][0]["dispute_id"]

    page = await new_page()
    for path in ("/moderate/disputes", f"/moderate/disputes/{dispute_id}"):
        await page.goto(f"{server_url}{path}")
        await expect(page.locator("#token-form")).to_be_visible()
        html = await page.content()
        assert "alice" not in html and "drew twice" not in html and str(game_id) not in html, path
    # A seat's token is not a moderator's: refused, and still nothing shown.
    await page.get_by_label("Moderator token").fill(tokens[1])
    await page.get_by_role("button", name="Open").click()
    await expect(page.locator("#problem")).to_be_visible()
    await expect(page.locator("#dispute")).to_be_hidden()
    html = await page.content()
    assert "alice" not in html and "drew twice" not in html and str(game_id) not in html


async def test_a_seat_follows_its_dispute_and_raises_another_from_its_replay_page(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    game_id, tokens = await finished_game(remote, public=False)
    bob = await new_page()
    await raise_from_play_page(bob, server_url, str(game_id), tokens[1])
    await bob.get_by_role("link", name="Replay this game").click()
    await expect(bob.locator("#perspective")).to_contain_text("As bob (seat 1) saw it")
    await expect(bob.locator("#dispute-list")).to_contain_text("Your rules dispute · waiting for a moderator")
    await bob.locator("body").focus()
    await bob.keyboard.press("Home")
    await expect(bob.locator("#at")).to_have_text(re.compile(r"^Move 1 of \d+$"))  # the seat's own numbers
    await bob.get_by_text("Raise a dispute").click()
    await bob.get_by_role("button", name="Add the event shown").click()
    await expect(bob.get_by_label("Events concerned")).to_have_value("1")
    await bob.get_by_label("Category").select_option("technical")
    await bob.get_by_label("What went wrong").fill("The deal looked odd.")
    await bob.get_by_role("button", name="Raise the dispute").click()
    await expect(bob.locator("#dispute-list li.dispute")).to_have_count(2)
    await expect(bob.locator("#dispute-list")).to_contain_text("Your technical dispute")
    await expect(bob.locator("#dispute-list")).to_contain_text("Events: 1")


async def test_spectators_see_a_dispute_under_review_then_its_verdict_and_never_its_reason(
    server_url: str, remote: PlaylogClient, settings: Settings, new_page: Any
) -> None:
    game_id, tokens = await finished_game(remote)  # public, no spectator delay
    bob = {"Authorization": f"Bearer {tokens[1]}"}
    raised = await remote.http.post(
        f"/games/{game_id}/disputes", json={"seqs": [6], "category": "rules", "reason": REASON}, headers=bob
    )
    dispute_id = raised.json()["dispute_id"]
    page = await new_page()
    await page.goto(f"{server_url}/watch/{game_id}")
    note = page.locator("#disputes-note")
    await expect(note).to_have_text("A dispute about this game is under review.")
    mod = {"Authorization": f"Bearer {moderator_token(settings)}"}
    base = f"/moderation/disputes/{dispute_id}"
    assert (await remote.http.post(f"{base}/claim", headers=mod)).status_code == 200
    ruling = {"verdict": "upheld", "action": "award", "seats": [1], "explanation": "A second draw."}
    assert (await remote.http.post(f"{base}/resolve", json=ruling, headers=mod)).status_code == 200
    await expect(note).to_contain_text("A dispute was ruled: Upheld: the win goes to bob (seat 1)")
    await expect(page.locator("#result")).to_contain_text("Winner as ruled by a moderator: bob (seat 1)")
    assert "drew twice" not in await page.content()


async def test_the_watch_page_never_shows_an_older_answer_over_a_newer_one(
    server_url: str, remote: PlaylogClient, settings: Settings, new_page: Any
) -> None:
    game_id, tokens = await finished_game(remote)
    bob = {"Authorization": f"Bearer {tokens[1]}"}
    raised = await remote.http.post(
        f"/games/{game_id}/disputes", json={"seqs": [6], "category": "rules", "reason": "late"}, headers=bob
    )
    base = f"/moderation/disputes/{raised.json()['dispute_id']}"
    mod = {"Authorization": f"Bearer {moderator_token(settings)}"}
    page = await new_page()
    hold = False
    held, released, shown = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def answer_late(route: Any) -> None:
        """One snapshot read before the ruling answers after the refresh the ruling asks for."""
        nonlocal hold
        if not hold:
            await route.continue_()
            return
        hold = False
        before_the_ruling = await route.fetch()
        held.set()
        await asyncio.sleep(1.5)
        await route.fulfill(response=before_the_ruling)
        released.set()

    def asked(request: Any) -> None:
        """The page reads the disputes right after it has shown a snapshot."""
        if released.is_set() and request.url.endswith("/disputes"):
            shown.set()

    await page.route(lambda url: url.endswith("/spectate/head"), answer_late)
    page.on("request", asked)
    await page.goto(f"{server_url}/watch/{game_id}")
    await expect(page.locator("#disputes-note")).to_have_text("A dispute about this game is under review.")
    hold = True
    assert (await remote.http.post(f"{base}/claim", headers=mod)).status_code == 200
    await asyncio.wait_for(held.wait(), 20)
    ruling = {"verdict": "upheld", "action": "award", "seats": [1], "explanation": "A second draw."}
    assert (await remote.http.post(f"{base}/resolve", json=ruling, headers=mod)).status_code == 200
    await asyncio.wait_for(shown.wait(), 20)  # the late answer has been shown
    await expect(page.locator("#result")).to_contain_text("Winner as ruled by a moderator: bob (seat 1)")


async def test_the_queue_shows_a_game_under_incident_and_a_moderator_clears_it(
    server_url: str, remote: PlaylogClient, settings: Settings, new_page: Any
) -> None:
    game_id, _ = await finished_game(remote, public=False)
    conn = await asyncpg.connect(str(settings.database_url))
    try:  # as the service records one when it finds acknowledged seqs missing from the log
        at = await conn.fetchval("SELECT seq FROM streams WHERE game_id = $1", game_id)
        await conn.execute(
            "INSERT INTO incidents (game_id, reason, acknowledged_seq, log_seq)"
            " VALUES ($1, 'cache_ahead_of_log', $2, $3)",
            game_id,
            at + 2,
            at,
        )
    finally:
        await conn.close()
    mod = await new_page()
    await open_with_token(mod, f"{server_url}/moderate/disputes", moderator_token(settings))
    row = mod.locator(f'#incident-list li.incident[data-game-id="{game_id}"]')
    await expect(row).to_contain_text(f"seqs {at + 1} to {at + 2} missing")
    await expect(row).to_contain_text("cache ahead of log")
    await row.get_by_label(f"What you found in game {game_id}").fill(f"checked the log {EVIL}")
    await row.get_by_role("button", name="Clear").click()
    await expect(mod.locator("#incidents")).to_be_hidden()
    cleared = (
        await remote.http.get(
            "/moderation/incidents", headers={"Authorization": f"Bearer {moderator_token(settings)}"}
        )
    ).json()
    assert cleared["items"] == []


async def test_the_queue_clears_its_unreachable_problem_when_the_server_is_back(
    server_url: str, settings: Settings, new_page: Any
) -> None:
    mod = await new_page()
    await open_with_token(mod, f"{server_url}/moderate/disputes", moderator_token(settings))
    await expect(mod.locator("#count")).not_to_be_empty()
    await mod.route("**/*", lambda route: route.abort())  # the network is cut
    await expect(mod.locator("#problem")).to_contain_text("cannot be reached", timeout=QUEUE_WAIT)
    await mod.unroute("**/*")
    await expect(mod.locator("#connection")).to_be_empty(timeout=30_000)
    await expect(mod.locator("#problem")).to_be_hidden()
