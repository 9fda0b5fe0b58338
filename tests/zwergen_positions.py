"""Constructed Zwergen Ziehen positions for rule tests, driven through the jitted functions."""

import numpy as np

from simcore.engine import rng
from simcore.games import zwergen as z


def legal_moves(state, params, seat, moves):
    """The legal moves of ``seat`` as (kind, card type, colour) rows of ``moves``; return how many."""
    codes = np.zeros(z.MAX_MOVES, np.int64)
    n = z.move_actions(state, params, seat, codes)
    for i in range(n):
        moves[i] = z.decode_move(codes[i])
    return n


def play_picks(state, params, streams):
    """The pending starting-colour decisions, picked by the random policy (uniform over the legal list)."""
    actions = np.zeros(z.MAX_ACTIONS, np.int64)
    while state[z.S_PHASE] == z.PH_COLOUR:
        seat = int(state[z.S_PICKER])
        n = z.legal_actions(state, params, actions)
        z.apply_action(state, params, actions[rng.randint(streams, rng.POLICY + seat, n)], streams)


def finish_turn(state, params, streams, mover):
    """End ``mover``'s turn (random picks of a new round's gnomes); return the match winner or -1."""
    z.end_turn(state, params, mover)
    play_picks(state, params, streams)
    return z.match_winner(state, params)


class Position:
    """A match set up by the real ``setup``/``start_round``, then edited by the test."""

    def __init__(self, seed=1, **params):
        values = z.GAME.defaults()
        values.update({k.replace("__", "."): v for k, v in params.items()})
        z.check(values)
        self.params = z.params_array(values)
        self.state = z.new_state()
        self.streams = np.zeros(rng.N_STREAMS, np.uint64)
        rng.seed_streams(self.streams, seed, 0)
        z.setup(self.state, self.params, self.streams)
        z.open_round(self.state, self.params, 0)
        play_picks(self.state, self.params, self.streams)
        self.view = z.View(self.state)
        self.moves = np.zeros((z.MAX_MOVES, 3), np.int64)

    def team(self, team, colours):
        """Replace a team's gnomes by ``colours``; hats come from / go back to the supply."""
        self.view.supply[:] += self.view.teams[team]
        self.view.teams[team] = 0
        for c in colours:
            self.view.teams[team, c] += 1
            self.view.supply[c] -= 1

    def hand(self, seat, types):
        """Give ``seat`` exactly these cards; its old cards go to the discard pile."""
        self.view.discard[:] += self.view.hands[seat]
        self.view.hands[seat] = 0
        for t in types:
            if self.view.discard[t] > 0:
                self.view.discard[t] -= 1
            else:  # take it from the draw pile so that the 55 cards stay 55
                pile = list(self.view.draw_pile)
                pile.remove(t)
                n = len(pile)
                self.state[z.S_DRAW:z.S_DRAW + n] = pile
                self.state[z.S_DRAW_N] = n
            self.view.hands[seat, t] += 1

    def rope(self, value):
        self.state[z.S_ROPE] = value

    def front(self, team):
        return int(z.front(self.state, self.params, team))

    def legal(self, seat):
        n = legal_moves(self.state, self.params, seat, self.moves)
        return [tuple(int(x) for x in m) for m in self.moves[:n]]

    def play(self, seat, kind, t=-1, c=-1, mask=0):
        """Apply one move and finish the turn; return the match winner or -1."""
        assert (kind, t, c) in self.legal(seat), f"{(kind, t, c)} is not legal for seat {seat}"
        z.apply_move(self.state, self.params, seat, kind, t, c, mask, self.streams)
        return int(finish_turn(self.state, self.params, self.streams, seat))

    def cards(self):
        return int(self.view.hands.sum() + self.view.discard.sum() + self.state[z.S_DRAW_N])
