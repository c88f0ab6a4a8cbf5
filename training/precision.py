"""The precision policy, in one place: the network computes in `compute_dtype`, everything else
stays float32.

With "bfloat16" (for a GPU's tensor cores) the network's layers multiply and add in bfloat16
while their parameters are stored in float32 (`param_dtype`), so the optimizer's moments and
updates are float32 too; the network hands back its logits and values as float32, so the
losses, the advantages and the policy that samples moves never see bfloat16. "float32", the
default, is what every shipped network was trained with.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

__all__ = ["COMPUTE_DTYPES", "PARAM_DTYPE", "check_compute_dtype", "network_dtypes"]

COMPUTE_DTYPES = {"float32": jnp.float32, "bfloat16": jnp.bfloat16}
PARAM_DTYPE = jnp.float32  # the parameters, the optimizer state and the loss


def check_compute_dtype(name: Any) -> None:
    """ValueError unless `name` is one of COMPUTE_DTYPES."""
    if name not in COMPUTE_DTYPES:
        raise ValueError(f"compute_dtype must be one of {', '.join(COMPUTE_DTYPES)}, not {name!r}")


def network_dtypes(config: Any) -> dict:
    """`make_network`'s dtype options for a trainer's config (its `compute_dtype`)."""
    name = getattr(config, "compute_dtype", "float32")
    check_compute_dtype(name)
    return {"dtype": COMPUTE_DTYPES[name], "param_dtype": PARAM_DTYPE}
