"""One deployment, several instances: the settings they must share, checked when each starts.

An instance signs receipts, checkpoints and seats' claims with the log's keys and tokens with the
JWT keys; two instances of one deployment that disagree on them give different answers to one
retried command, claims one of them cannot open, tokens the other refuses, a log a witness takes
for a fork (docs/scaling.md, "Shared settings"). So the first instance to start records the
deployment's *public* identity in the database (service/store/deployment.py): the log's origin
and verifier keys, the witnesses' keys, the JWT keys' ids with a fingerprint of each secret. An
instance whose configuration gives another value refuses to start, naming the setting and the
fix. ``playlog deployment rotate-log-key`` and ``playlog deployment adopt`` change the record on
purpose.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from typing import Any

from projections.notes import Verifier
from service.app.auth import Keyring
from service.config import Settings
from service.store import deployment as record
from service.transparency.identity import KEYS_FILE, Identity

# The settings every instance of a deployment shares (docs/scaling.md, "Shared settings").
SHARED = ("PLAYLOG_LOG_ORIGIN", "PLAYLOG_LOG_SIGNING_KEY", "PLAYLOG_WITNESS_KEYS", "PLAYLOG_JWT_SECRET")
# Example secrets published with playlog (an older docker/compose.yaml's default): anyone can
# sign tokens with them.
PUBLIC_SECRETS = frozenset({"change-me-to-a-long-random-secret"})
_FINGERPRINT = b"playlog/jwt-fingerprint/v1"


class Disagreement(Exception):
    """This instance's configuration cannot serve the deployment recorded in its database."""


def fingerprint(secret: str) -> str:
    """A JWT secret's fingerprint: tells two secrets apart, reveals nothing a token does not
    (a token is an HMAC of the secret already)."""
    return hmac.digest(secret.encode(), _FINGERPRINT, "sha256")[:16].hex()


def public_identity(log: Identity, keys: Keyring, witnesses: Sequence[Verifier]) -> dict[str, str]:
    """The public form of each shared setting, as the database records it."""
    return {
        "PLAYLOG_LOG_ORIGIN": log.origin,
        "PLAYLOG_LOG_SIGNING_KEY": _verifier_keys(log),
        "PLAYLOG_WITNESS_KEYS": ",".join(sorted(w.text for w in witnesses)),
        "PLAYLOG_JWT_SECRET": ",".join(f"{kid}:{fingerprint(secret)}" for kid, secret in keys.keys),
    }


def _verifier_keys(log: Identity) -> str:
    return ",".join(v.text for v in log.verifiers)


def refuse_public_secrets(keys: Keyring) -> None:
    if any(secret in PUBLIC_SECRETS for _, secret in keys.keys):
        raise Disagreement(
            "PLAYLOG_JWT_SECRET is the example value published with playlog: anyone could sign"
            " tokens with it. Run `playlog deployment init --file FILE` once and give every instance"
            " PLAYLOG_DEPLOYMENT_FILE=FILE, or set PLAYLOG_JWT_SECRET to a long random secret"
            " (`openssl rand -hex 32`) on every instance."
        )


async def check(conn: Any, settings: Settings, log: Identity, keys: Keyring) -> None:
    """Record this configuration's identity if the database has none yet; refuse (``Disagreement``)
    a configuration that disagrees with the recorded one."""
    refuse_public_secrets(keys)
    ours = public_identity(log, keys, settings.witnesses())
    recorded = await record.settle(conn, ours)
    problems = [
        _problem(settings, name, value, *recorded[name])
        for name, value in ours.items()
        if recorded[name][0] != value
    ]
    if problems:
        raise Disagreement("\n".join(problems))


async def check_log_keys(conn: Any, settings: Settings, log: Identity) -> None:
    """For a command that reveals what the log's keys derive (``playlog export``: the receipts'
    game keys): refuse keys other than the recorded ones. Records nothing."""
    name = "PLAYLOG_LOG_SIGNING_KEY"
    recorded = (await record.recorded(conn)).get(name)
    ours = _verifier_keys(log)
    if recorded is not None and recorded[0] != ours:
        raise Disagreement(_problem(settings, name, ours, *recorded))


async def adopt(conn: Any, settings: Settings, log: Identity, keys: Keyring, names: Sequence[str]) -> None:
    """Record this configuration's values of ``names`` as the deployment's."""
    refuse_public_secrets(keys)
    ours = public_identity(log, keys, settings.witnesses())
    await record.replace(conn, {name: ours[name] for name in names})


def _problem(settings: Settings, name: str, ours: str, theirs: str, since: Any) -> str:
    shown = {"PLAYLOG_JWT_SECRET": "key ids and fingerprints"}.get(name, "value")
    lines = [
        f"{name} differs from the deployment's, recorded in the database on {since:%Y-%m-%d %H:%M} UTC"
        f" (its {shown}: {theirs or '(none)'}; this instance's: {ours or '(none)'}).",
    ]
    generated = {"PLAYLOG_JWT_SECRET": "jwt-secret", "PLAYLOG_LOG_SIGNING_KEY": KEYS_FILE}.get(name)
    configured = settings.jwt_secret if name == "PLAYLOG_JWT_SECRET" else settings.log_signing_key
    if generated and not configured:
        lines.append(
            f"  This instance has no {name}: it uses the one it generated in"
            f" {settings.data_dir / generated}, which no other instance has."
        )
    lines.append(
        f"  Fix: give every instance the deployment's {name} (`playlog deployment init --file FILE`"
        " writes the shared settings once; every instance reads them with PLAYLOG_DEPLOYMENT_FILE=FILE)."
    )
    if name == "PLAYLOG_LOG_SIGNING_KEY":
        lines.append(
            "  To sign with a new key on purpose: `playlog deployment rotate-log-key`, with the"
            " deployment's keys; if they are lost: `playlog deployment adopt PLAYLOG_LOG_SIGNING_KEY"
            " --drop-log-keys` (witnesses then see a new log)."
        )
    else:
        lines.append(f"  To change it for the whole deployment on purpose: `playlog deployment adopt {name}`")
    return "\n".join(lines)
