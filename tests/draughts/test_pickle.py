"""A pickled draughts State loads in a fresh interpreter, where no env of its variant exists."""

import pickle
import subprocess
import sys

import jax
import numpy as np
import pytest

import jaxcheckers


@pytest.mark.parametrize("variant", ["international", "russian"])
def test_a_pickled_state_loads_in_a_fresh_interpreter(tmp_path, variant):
    state = jaxcheckers.make("draughts", variant=variant).reset(jax.random.key(0))
    path = tmp_path / "state.pkl"
    path.write_bytes(pickle.dumps(state))
    script = (
        "import pickle, sys, numpy as np; "
        "s = pickle.load(open(sys.argv[1], 'rb')); "
        "print(type(s).__name__, int(np.asarray(s.legal_action_bits).sum()))"
    )
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == [type(state).__name__, str(int(np.asarray(state.legal_action_bits).sum()))]


def test_an_unknown_state_name_is_an_attribute_error():
    import jaxcheckers.draughts.env as env_module

    with pytest.raises(AttributeError):
        env_module.DraughtsStateFrisian  # noqa: B018
