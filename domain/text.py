"""What people may write: display names, and texts (a dispute's reason, a reply, a note, a
question, a ruling's explanation, a review's reason).

Neither holds a control character (C0, DEL, C1: PostgreSQL stores no NUL in text or jsonb, and
the others garble a page or a log line), except that a text may break lines (tab, LF, CR: the
pages write texts in a textarea); neither is blank. The patterns are the OpenAPI document's (the
request bodies' ``msgspec.Meta``) and the rules' own check: written for both regular expression
dialects, JSON Schema's (ECMA 262) and Python's, with the spaces spelled out rather than ``\\s``,
whose meaning differs between the two.
"""

from __future__ import annotations

import re

# The characters str.strip() removes that are no control character (JSON Schema's \s but U+FEFF).
_SPACES = r" \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_CONTROLS = r"\x00-\x1f\x7f-\x9f"
_CONTROLS_BUT_LINES = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"

NAME_PATTERN = rf"^[^{_CONTROLS}]*[^{_CONTROLS}{_SPACES}][^{_CONTROLS}]*$"
TEXT_PATTERN = rf"^[^{_CONTROLS_BUT_LINES}]*[^{_CONTROLS}{_SPACES}][^{_CONTROLS_BUT_LINES}]*$"

_NAME = re.compile(NAME_PATTERN)
_TEXT = re.compile(TEXT_PATTERN)


def is_name(value: str) -> bool:
    """One line, no control character, not blank."""
    return _NAME.fullmatch(value) is not None


def is_text(value: str) -> bool:
    """No control character but line breaks and tabs, not blank."""
    return _TEXT.fullmatch(value) is not None
