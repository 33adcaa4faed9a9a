"""Merkle tree hashing and proofs of RFC 9162 (section 2.1), over perfect subtrees.

The log stores the hash of every perfect subtree once it is complete: ``(level, index)`` is the
subtree of the ``2**level`` leaves from ``index * 2**level``. Every hash the RFC's recursion asks
for is the hash of a range ``[lo, hi)`` of leaves that splits, greedily from the left, into such
subtrees; a proof is therefore a list of ranges (``inclusion_ranges``, ``consistency_ranges``),
and the storage fetches the subtrees those ranges need (``pieces``) in one read. Pure: no I/O.

Leaf hash ``SHA-256(0x00 || data)``, node hash ``SHA-256(0x01 || left || right)``.
"""

from __future__ import annotations

import hashlib
import struct
import uuid
from collections.abc import Iterable, Mapping, Sequence

Node = tuple[int, int]  # (level, index) of a perfect subtree
Range = tuple[int, int]  # leaves [lo, hi)


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n >= 2): where RFC 9162 splits a tree."""
    return 1 << ((n - 1).bit_length() - 1)


def pieces(lo: int, hi: int) -> list[Node]:
    """The perfect subtrees ``[lo, hi)`` splits into, left to right (``lo`` aligned as in a tree)."""
    out: list[Node] = []
    while lo < hi:
        level = (hi - lo).bit_length() - 1
        while lo % (1 << level):
            level -= 1
        out.append((level, lo >> level))
        lo += 1 << level
    return out


def range_hash(lo: int, hi: int, nodes: Mapping[Node, bytes]) -> bytes:
    """MTH of leaves ``[lo, hi)``: its pieces folded from the right."""
    parts = [nodes[p] for p in pieces(lo, hi)]
    acc = parts[-1]
    for part in reversed(parts[:-1]):
        acc = node_hash(part, acc)
    return acc


def inclusion_ranges(index: int, size: int) -> list[Range]:
    """The ranges whose hashes make the audit path of leaf ``index`` in a tree of ``size`` leaves
    (RFC 9162 2.1.3.1), from the leaf's sibling up."""
    if not 0 <= index < size:
        raise ValueError("index outside the tree")
    out: list[Range] = []
    lo, hi = 0, size
    while hi - lo > 1:
        k = _split(hi - lo)
        if index < lo + k:
            out.append((lo + k, hi))
            hi = lo + k
        else:
            out.append((lo, lo + k))
            lo += k
    out.reverse()
    return out


def consistency_ranges(old: int, new: int) -> list[Range]:
    """The ranges whose hashes make the consistency proof from size ``old`` to ``new``
    (RFC 9162 2.1.4.1, SUBPROOF), in the RFC's order."""
    if not 0 < old <= new:
        raise ValueError("sizes must satisfy 0 < old <= new")
    out: list[Range] = []

    def sub(m: int, lo: int, hi: int, complete: bool) -> None:
        n = hi - lo
        if m == n:
            if not complete:
                out.append((lo, hi))
            return
        k = _split(n)
        if m <= k:
            sub(m, lo, lo + k, complete)
            out.append((lo + k, hi))
        else:
            sub(m - k, lo + k, hi, False)
            out.append((lo, lo + k))

    if old < new:
        sub(old, 0, new, True)
    return out


def needed(ranges: Iterable[Range]) -> set[Node]:
    return {p for lo, hi in ranges for p in pieces(lo, hi)}


def appended(frontier: Mapping[Node, bytes], size: int, leaves: Sequence[bytes]) -> dict[Node, bytes]:
    """The perfect subtrees completed by appending ``leaves`` to a tree of ``size`` leaves, whose
    right edge (``pieces(0, size)``) is ``frontier``; the leaves themselves (level 0) included."""
    known = dict(frontier)
    made: dict[Node, bytes] = {}
    for offset, leaf in enumerate(leaves):
        index = size + offset
        level, current = 0, leaf
        made[(0, index)] = known[(0, index)] = leaf
        while index & 1:
            current = node_hash(known[(level, index - 1)], current)
            level, index = level + 1, index >> 1
            made[(level, index)] = known[(level, index)] = current
    return made


def root(size: int, nodes: Mapping[Node, bytes]) -> bytes:
    """The root of the first ``size`` leaves (the empty tree's is SHA-256 of nothing)."""
    if size == 0:
        return hashlib.sha256(b"").digest()
    return range_hash(0, size, nodes)


def _hashes(*hashes: bytes) -> bool:
    """Whether each is a SHA-256 hash in length: an empty leaf hash would match an empty root."""
    return all(len(h) == 32 for h in hashes)


def verify_inclusion(leaf: bytes, index: int, size: int, proof: Sequence[bytes], expected: bytes) -> bool:
    """RFC 9162 2.1.3.2: does ``proof`` put ``leaf`` (a leaf hash) at ``index`` under ``expected``?"""
    if not 0 <= index < size or not _hashes(leaf, *proof):
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == expected


def verify_consistency(old: int, new: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]) -> bool:
    """RFC 9162 2.1.4.2: is the tree of ``new`` leaves under ``new_root`` an extension of the tree
    of ``old`` leaves under ``old_root``?"""
    if not 0 < old <= new or not _hashes(*proof):
        return False
    if old == new:
        return not proof and old_root == new_root
    path = list(proof)
    if old & (old - 1) == 0:  # a power of two: the old root is the first hash
        path.insert(0, old_root)
    if not path:
        return False
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and fr == old_root and sr == new_root


# playlog's leaves (docs/transparency-log.md): a game's head at a seq. Version 1 names the game
# (its data is never served); version 2, the leaf of today, names it by a random tag drawn once
# per game, so its data is public as the log's entry (tile/entries).
LEAF_PREFIX = b"playlog/head/v1"
LEAF_PREFIX_V2 = b"playlog/head/v2"
TAG_SIZE = 32


def leaf_data_v2(tag: bytes, seq: int, head: bytes) -> bytes:
    return LEAF_PREFIX_V2 + tag + struct.pack(">Q", seq) + head


def leaf_data(game_id: uuid.UUID, seq: int, head: bytes, tag: bytes | None = None) -> bytes:
    """The leaf's data: version 2 (``tag``: the game's tag in the log) or, without a tag, 1."""
    if tag is not None:
        return leaf_data_v2(tag, seq, head)
    return LEAF_PREFIX + game_id.bytes + struct.pack(">Q", seq) + head
