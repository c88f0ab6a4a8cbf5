"""The self-play trainers (PPO, AlphaZero), installed as `jaxcheckers.training`; they need the
`training` extra (pip install 'jaxcheckers[training]'). The library never imports them."""

from jaxcheckers.extras import require

# What the trainers import beyond jax: a missing one is one line naming the extra, at import.
REQUIRES = ("flax", "optax", "orbax.checkpoint", "chex", "tqdm", "matplotlib")
require(REQUIRES, "the trainer (jaxcheckers.training)")
