"""RFC 9162 hashing and proofs (projections/merkle.py), checked against a naive tree and an
independent verifier written from the RFC's definitions (not the module's own)."""

from __future__ import annotations

import hashlib

import pytest

from projections import merkle

# RFC 6962 / 9162 test leaves (the inputs of the reference implementations' test vectors).
LEAVES = [
    bytes.fromhex(h)
    for h in [
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    ]
]
# Roots of the first n of them, the published values of those vectors.
ROOTS = {
    1: "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    2: "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    3: "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    4: "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    5: "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    6: "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    7: "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    8: "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
}


def H(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def mth(leaves: list[bytes]) -> bytes:
    """MTH of RFC 9162 2.1.1, on leaf data, written as the RFC writes it."""
    if not leaves:
        return H(b"")
    if len(leaves) == 1:
        return H(b"\x00" + leaves[0])
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return H(b"\x01" + mth(leaves[:k]) + mth(leaves[k:]))


def naive_path(m: int, leaves: list[bytes]) -> list[bytes]:
    """PATH(m, D[n]) of RFC 9162 2.1.3.1."""
    if len(leaves) == 1:
        return []
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    if m < k:
        return [*naive_path(m, leaves[:k]), mth(leaves[k:])]
    return [*naive_path(m - k, leaves[k:]), mth(leaves[:k])]


def naive_subproof(m: int, leaves: list[bytes], complete: bool) -> list[bytes]:
    """SUBPROOF(m, D[n], b) of RFC 9162 2.1.4.1."""
    n = len(leaves)
    if m == n:
        return [] if complete else [mth(leaves)]
    k = 1
    while k * 2 < n:
        k *= 2
    if m <= k:
        return [*naive_subproof(m, leaves[:k], complete), mth(leaves[k:])]
    return [*naive_subproof(m - k, leaves[k:], False), mth(leaves[:k])]


def rebuild_from_path(leaf: bytes, index: int, size: int, proof: list[bytes]) -> bytes | None:
    """An independent inclusion verifier: walk the tree's splits top-down (the path is bottom-up,
    so it is consumed from its end) and fold back up."""
    rest = list(proof)

    def up(lo: int, hi: int) -> bytes | None:
        if hi - lo == 1:
            return leaf
        k = 1
        while k * 2 < hi - lo:
            k *= 2
        if not rest:
            return None
        sibling = rest.pop()
        if index < lo + k:
            inner = up(lo, lo + k)
            return None if inner is None else H(b"\x01" + inner + sibling)
        inner = up(lo + k, hi)
        return None if inner is None else H(b"\x01" + sibling + inner)

    got = up(0, size)
    return got if not rest else None


def nodes_of(leaves: list[bytes]) -> dict[merkle.Node, bytes]:
    nodes: dict[merkle.Node, bytes] = {}
    made = merkle.appended({}, 0, [merkle.leaf_hash(x) for x in leaves])
    nodes.update(made)
    return nodes


def data(n: int) -> list[bytes]:
    return [f"leaf {i}".encode() for i in range(n)]


def test_the_roots_of_the_rfc_test_leaves_are_the_published_ones() -> None:
    for n, expected in ROOTS.items():
        assert mth(LEAVES[:n]).hex() == expected
        assert merkle.root(n, nodes_of(LEAVES[:n])).hex() == expected


def test_leaf_and_node_hashes_carry_the_rfc_prefixes() -> None:
    assert merkle.leaf_hash(b"x") == H(b"\x00x")
    assert merkle.node_hash(b"a" * 32, b"b" * 32) == H(b"\x01" + b"a" * 32 + b"b" * 32)
    assert merkle.root(0, {}) == H(b"")


def test_appending_in_batches_gives_the_tree_built_at_once() -> None:
    leaves = [merkle.leaf_hash(x) for x in data(70)]
    nodes: dict[merkle.Node, bytes] = {}
    size = 0
    for batch in (1, 2, 5, 8, 1, 13, 40):
        frontier = {p: nodes[p] for p in merkle.pieces(0, size)}
        nodes.update(merkle.appended(frontier, size, leaves[size : size + batch]))
        size += batch
        assert merkle.root(size, nodes) == mth(data(70)[:size])


@pytest.mark.parametrize("size", range(1, 34))
def test_inclusion_proofs_are_the_rfc_paths_and_verify_both_ways(size: int) -> None:
    leaves = data(size)
    nodes = nodes_of(leaves)
    root = mth(leaves)
    for index in range(size):
        proof = [merkle.range_hash(lo, hi, nodes) for lo, hi in merkle.inclusion_ranges(index, size)]
        assert proof == naive_path(index, leaves)
        leaf = merkle.leaf_hash(leaves[index])
        assert rebuild_from_path(leaf, index, size, proof) == root
        assert merkle.verify_inclusion(leaf, index, size, proof, root)
        assert not merkle.verify_inclusion(merkle.leaf_hash(b"other"), index, size, proof, root)
        if size > 1:
            assert not merkle.verify_inclusion(leaf, index, size, proof[:-1], root)
            assert not merkle.verify_inclusion(leaf, (index + 1) % size, size, proof, root)


@pytest.mark.parametrize("new", range(1, 34))
def test_consistency_proofs_are_the_rfc_subproofs_and_verify(new: int) -> None:
    leaves = data(new)
    nodes = nodes_of(leaves)
    for old in range(1, new + 1):
        proof = [merkle.range_hash(lo, hi, nodes) for lo, hi in merkle.consistency_ranges(old, new)]
        assert proof == (naive_subproof(old, leaves, True) if old < new else [])
        assert merkle.verify_consistency(old, new, mth(leaves[:old]), mth(leaves), proof)
        forked = [*leaves[: old - 1], b"forged", *leaves[old:]]
        assert not merkle.verify_consistency(old, new, mth(forked[:old]), mth(leaves), proof)
        if old < new:
            assert not merkle.verify_consistency(old, new, mth(leaves[:old]), mth(forked), proof)


def test_the_verifiers_refuse_impossible_sizes() -> None:
    root = mth(data(4))
    assert not merkle.verify_inclusion(b"x" * 32, 4, 4, [], root)
    assert not merkle.verify_consistency(0, 4, root, root, [])
    assert not merkle.verify_consistency(5, 4, root, root, [])
    assert not merkle.verify_consistency(4, 4, root, H(b"other"), [])
    with pytest.raises(ValueError):
        merkle.inclusion_ranges(3, 3)
