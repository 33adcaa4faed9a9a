"""Webhook targets inside the operator's network are refused (issue 54): by address (loopback,
10/8, 172.16/12, 192.168/16, 169.254/16, ::1, fc00::/7, an IPv4 address mapped into IPv6) and by a
name that resolves to one, each with its problem+json code; nothing is registered."""

from __future__ import annotations

from service.tools.client import PlaylogClient

REFUSED = [
    ("http://127.0.0.1/", "webhook_target_private"),
    ("https://10.1.2.3/hook", "webhook_target_private"),
    ("http://172.16.0.1/", "webhook_target_private"),
    ("http://172.31.255.254/", "webhook_target_private"),
    ("http://192.168.1.1/", "webhook_target_private"),
    ("http://169.254.169.254/latest/meta-data/", "webhook_target_private"),
    ("http://[::1]/", "webhook_target_private"),
    ("http://[fc00::1]/", "webhook_target_private"),
    ("http://[fd12:3456::1]/", "webhook_target_private"),
    ("http://[::ffff:127.0.0.1]/", "webhook_target_private"),
    ("http://localhost:8080/hook", "webhook_target_private"),  # a name resolving to loopback
    ("ftp://example.com/", "webhook_scheme_refused"),
    ("http://user:pw@example.com/", "webhook_url_invalid"),
    ("http://example.com:99999/", "webhook_url_invalid"),
    ("http://no-such-host.invalid/", "webhook_host_unresolved"),
]


async def test_targets_inside_are_refused_unless_the_operator_allows_them(api: PlaylogClient) -> None:
    player = await api.create_player("pat")
    auth = {"Authorization": f"Bearer {player.token}"}
    for url, code in REFUSED:
        refused = await api.http.post("/players/me/webhooks", json={"url": url}, headers=auth)
        assert refused.status_code == 422, (url, refused.text)
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert refused.json()["code"] == code, url
    assert (await api.http.get("/players/me/webhooks", headers=auth)).json()["webhooks"] == []
