"""How much of an ISMCTS tree in Der Herr der Wichtel lies below action codes its deciding seat could not have
seen (issue 24): the share of the visits of decision nodes whose path from the root holds another seat's
hidden card, for the raw tree (one tree keyed by action codes) and the observed tree (``tree=observed``: one
tree per seat keyed by what that seat observes, each seat deciding in its own).

A code is hidden from seat m, deciding at a node below it, when the rules hide its card from m (docs/wichtel.md,
"What each seat sees"): another seat's call; another seat's exchange (to the partner too, until its reply is
made: the cards are not looked at); the reply to an exchange, from everybody but the two partners; another
seat's bribe kind, within the bribe round (the last bribe shows them all). In the observed tree, m's nodes
count when a path code by another seat in those ranges is not the class code ``observed_action`` gives.

    python benchmarks/observed_tree.py [--games 4] [--iterations 1000] [--players 4]

Seat 0 searches (its tree is read at each of its decisions), the others play greedy.
"""

import argparse

import numpy as np

from simcore import agents, handle
from simcore.agents import core
from simcore.games.wichtel import rules as w


def kind(code):
    if code < w.A_EXCHANGE:
        return "call"
    if code < w.A_ENLIST:
        return "exchange"
    if w.A_BRIBE <= code < w.A_BRIBE + w.N_BRIBES:
        return "bribe"
    if w.A_REPLY <= code < w.A_REPLY + w.N_TYPES:
        return "reply"
    return "open"


def bribing(code):
    return w.A_NO_BRIBE <= code < w.A_BRIBE + w.N_BRIBES


def hidden(path, m, own, observed):
    """Does the path (root first: (code, mover) of each decision node) hold a card hidden from m, deciding
    next with the code ``own``? ``observed``: the path's codes are m's keys, and a class code hides nothing."""
    for i, (code, mover) in enumerate(path):
        if mover == m or mover < 0:
            continue
        k = kind(code)
        if k == "call":
            full = not observed or code != w.A_CALL
        elif k == "exchange":
            partner = (code - w.A_EXCHANGE) % w.MAX_SEATS
            replied = i + 1 < len(path) and kind(path[i + 1][0]) == "reply"
            seen = m == partner and replied
            full = not seen and (not observed or code != w.A_EXCHANGE + partner)
        elif k == "reply":
            exchanger = path[i - 1][1] if i > 0 else -1
            full = m != exchanger and (not observed or code != w.A_REPLY)
        elif k == "bribe":
            in_round = bribing(own) and all(bribing(c) for c, _ in path[i + 1:])
            full = in_round and (not observed or code != w.A_BRIBE)
        else:
            full = False
        if full:
            return True
    return False


def share(tree, roots, observed):
    """(visits below a hidden code, visits) over the decision nodes of the trees rooted at ``roots``; in an
    observed tree, only the nodes of the tree's own seat (where it decides)."""
    below = total = 0
    if tree[roots[0], core.N_VISITS] == 0:
        return 0, 0                     # a lone legal action: no search, the pool holds no tree
    for root in roots:
        stack = [(root, [])]
        while stack:
            node, path = stack.pop()
            child = tree[node, core.N_CHILD]
            while child >= 0:
                code, mover = int(tree[child, core.N_ACTION]), int(tree[child, core.N_MOVER])
                if mover >= 0 and (not observed or mover == root):
                    visits = int(tree[child, core.N_VISITS])
                    total += visits
                    below += visits * hidden(path, mover, code, observed)
                stack.append((child, path + [(code, mover)] if mover >= 0 else path))
                child = tree[child, core.N_SIBLING]
    return below, total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    game = handle.load_game("wichtel", {"players": args.players})
    module, params = game.module, game.params_array
    for tree_kind in ("raw", "observed"):
        spec = f"ismcts:iterations={args.iterations},tree={tree_kind}"
        table = np.zeros((module.MAX_SEATS, agents.WIDTH))
        table[0] = agents.parse(spec, module.GAME).row()
        below = total = searches = 0
        for g in range(args.games):
            state = game.new_initial_state(seed=1, game_index=g)
            while not state.is_terminal():
                if state.current_player() == 0:
                    tree, _ = game.bound.search_tree(params, table, np.int64(0), state.state, state.streams)
                    roots = range(args.players) if tree_kind == "observed" else [0]
                    b, t = share(tree, roots, tree_kind == "observed")
                    below, total, searches = below + b, total + t, searches + (t > 0)
                    state.apply_action(state.agent_action(spec))
                else:
                    state.apply_action(state.agent_action("greedy"))
        print(f"{tree_kind:>8} tree: {below / max(total, 1):.1%} of {total:,} decision-node visits lie below a "
              f"code their seat could not have seen ({searches} searches, {args.games} games, "
              f"{args.players} players)")


if __name__ == "__main__":
    main()
