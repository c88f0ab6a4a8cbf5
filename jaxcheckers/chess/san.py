"""Moves in standard algebraic notation (SAN), written from a state's legal moves (host-side).

    moves = legal_moves(env, state)          # [LegalMove(action, uci, san)], in action order
    action = read_move(env, state, "Nf3")    # or "g1f3"; ValueError with the reason otherwise

SAN is written as python-chess writes it: `O-O` / `O-O-O`, a piece letter (none for pawns), the
from-file, -rank or both where another piece of the same kind could also go there (file first),
`x` for a capture (a pawn's names its file), `=Q` for a promotion, then `+` for check or `#` for
mate. The check marks come from stepping every legal move at once in the env itself.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.chess.fen import position_board, uci_on_board, uci_to_action
from jaxcheckers.core import compiled_step, per_rules

__all__ = ["LegalMove", "legal_moves", "san", "read_move", "move_name"]

CHUNK = 64  # moves stepped at once for their check marks: most positions need one call
UCI = re.compile(r"[a-h][1-8][a-h][1-8][nbrq]?")
PIECE_LETTERS = "NBRQK"


class LegalMove(NamedTuple):
    action: int
    uci: str  # e.g. "e7e8q"
    san: str  # e.g. "e8=Q+"


@per_rules(maxsize=8)
def _children_marks(env):
    """jit (state, actions int32 (CHUNK,)) -> (check, mate) bool (CHUNK,) after each move."""

    def marks(state, actions):
        children = jax.vmap(env.step, in_axes=(None, 0))(state, actions)
        return _check_and_mate(children, state.current_player)

    return jax.jit(marks)


def _check_and_mate(child, mover):
    """(check, mate) after a move by `mover` (`child` one state or a batch of them)."""
    return child.in_check, child.rewards[..., mover] > 0  # only a mate rewards the mover


def legal_moves(env, state) -> list[LegalMove]:
    """Every legal move of one (unbatched) state, in action order, with its UCI and SAN."""
    actions = np.flatnonzero(np.asarray(state.legal_action_mask))
    if actions.size == 0:
        return []
    # Padded to whole chunks with repeats of legal moves: one compiled shape for every position.
    padded = np.resize(actions, -(-actions.size // CHUNK) * CHUNK).astype(np.int32)
    marks = [
        jax.device_get(_children_marks(env)(state, jnp.asarray(chunk)))
        for chunk in padded.reshape(-1, CHUNK)
    ]
    check, mate = (np.concatenate(m) for m in zip(*marks, strict=True))
    board, ucis = _board_and_ucis(state, actions)
    return [
        LegalMove(int(action), uci, san(board, uci, ucis) + _mark(check[i], mate[i]))
        for i, (action, uci) in enumerate(zip(actions, ucis, strict=True))
    ]


def _board_and_ucis(state, actions: np.ndarray) -> tuple[dict[int, str], list[str]]:
    """The position's `absolute_board` and the UCI of each of `actions`: the notation reads the
    position square by square, on the host, once for every move."""
    player = int(state.current_player)
    board = position_board(jax.device_get(state.position), player)
    return board, [uci_on_board(board, player, int(a)) for a in actions]


def _mark(check, mate) -> str:
    return "#" if mate else "+" if check else ""


def _square(name: str) -> int:
    return (int(name[1]) - 1) * 8 + "abcdefgh".index(name[0])


def san(board: dict[int, str], uci: str, legal_ucis: list[str]) -> str:
    """The SAN of legal move `uci`, without its check mark.

    board: {absolute square: piece letter} (`fen.absolute_board`); legal_ucis: every legal move
    of the position, for the disambiguation.
    """
    frm, to = _square(uci[:2]), _square(uci[2:4])
    piece = board[frm].upper()
    if piece == "K" and abs(to % 8 - frm % 8) == 2:
        return "O-O" if to % 8 == 6 else "O-O-O"
    capture = to in board or (piece == "P" and frm % 8 != to % 8)  # en passant lands on empty
    if piece == "P":
        text = (uci[0] + "x" if capture else "") + uci[2:4]
        return text + ("=" + uci[4].upper() if len(uci) == 5 else "")
    rivals = [
        m[:2]
        for m in legal_ucis
        if m[2:4] == uci[2:4] and m[:2] != uci[:2] and board[_square(m[:2])].upper() == piece
    ]
    origin = ""
    if rivals:
        if all(r[0] != uci[0] for r in rivals):
            origin = uci[0]
        elif all(r[1] != uci[1] for r in rivals):
            origin = uci[1]
        else:
            origin = uci[:2]
    return piece + origin + ("x" if capture else "") + uci[2:4]


def _plain(text: str) -> str:
    """SAN without the marks people leave out or add: check, mate, `=`, annotations."""
    return re.sub(r"[+#=!?]", "", text.replace("0-0-0", "O-O-O").replace("0-0", "O-O"))


def read_move(env, state, text: str, moves: list[LegalMove] | None = None) -> int:
    """The action of a move typed in UCI (`e2e4`, `e7e8n`) or SAN (`e4`, `Nbd7`, `exd5`, `O-O`,
    `e8=Q`; the check mark may be left out). ValueError, one line, when it is not a legal move."""
    typed = text.strip()
    if UCI.fullmatch(typed):
        return uci_to_action(state, typed)
    moves = legal_moves(env, state) if moves is None else moves
    plain = _plain(typed)
    if not plain:
        raise ValueError(f"could not read {typed!r}")
    # A lower-case piece letter is forgiven ("nf3"), but for b: "bxc3" is a pawn's capture.
    spellings = {plain, plain[0].upper() + plain[1:] if plain[0] in "nrqk" else plain}
    for move in moves:
        if _plain(move.san) in spellings:
            return move.action
    # Too little said: "Nd7" where two knights can go there.
    short = [m.san for m in moves if _undisambiguated(_plain(m.san)) == plain]
    if len(short) > 1:
        raise ValueError(f"{typed} is ambiguous: {' or '.join(short)}")
    if not re.fullmatch(r"[NBRQK]?[a-h]?[1-8]?x?[a-h][1-8](=?[NBRQ])?|O-O(-O)?", plain):
        raise ValueError(f"could not read {typed!r}")
    raise ValueError(f"{typed} is not legal here")


def _undisambiguated(plain: str) -> str:
    """A piece move's SAN without its from-file or -rank ("Nbd7" -> "Nd7")."""
    found = re.fullmatch(r"([NBRQK])[a-h]?[1-8]?(x?[a-h][1-8])", plain)
    return found.group(1) + found.group(2) if found else plain


def move_name(env, state, action: int) -> str:
    """The SAN of one legal action (for printing a move an agent played, and records): its check
    mark from stepping that move alone, where `legal_moves` steps every one."""
    actions = np.flatnonzero(np.asarray(state.legal_action_mask))
    found = np.flatnonzero(actions == int(action))
    if found.size == 0:
        raise ValueError(f"action {action} is not legal in this position")
    board, ucis = _board_and_ucis(state, actions)
    child = compiled_step(env)(state, np.int32(action))
    check, mate = _check_and_mate(child, int(state.current_player))
    return san(board, ucis[found[0]], ucis) + _mark(bool(check), bool(mate))
