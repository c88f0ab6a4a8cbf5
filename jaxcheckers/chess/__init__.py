"""Chess with PettingZoo chess_v6's action and observation layout, on bitboards."""

from jaxcheckers.chess.env import Chess, ChessState, state_from_fen
from jaxcheckers.chess.fen import action_to_uci, chess_fen, uci_to_action

__all__ = ["Chess", "ChessState", "state_from_fen", "chess_fen", "uci_to_action", "action_to_uci"]
