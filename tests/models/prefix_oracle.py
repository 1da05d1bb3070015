"""The own-leaf lengths of a prefix tree read from the tree itself: the independent derivation
that :func:`wordlens.models.tree_shape.own_lengths` (computed on sorted arrays, without a tree) is
tested against."""

from __future__ import annotations

from wordlens.models.prefix import Node, PrefixTree


def tree_own_lengths(tree: PrefixTree) -> list[int]:
    """Per text, the tokens of its own leaf: the leaf holding its last token, or, for a text
    ending inside a branching node, the longest leaf below it (a walk of the built tree)."""
    longest_leaf: dict[Node, int] = {}
    for root in tree.roots:
        for node in reversed(list(root.subtree())):  # children before parents
            below = [longest_leaf[child] for child in node.children]
            longest_leaf[node] = max(below) if below else node.length
    return [longest_leaf[node] for node in tree.end_nodes]
