import json

import pytest

from benchmarks import draughts_search_rounds
from jaxcheckers.draughts import lanes


@pytest.mark.slow  # a diagnostic benchmark; the search it counts is tested in tests/draughts
def test_rounds_split_search_no_more_than_whole_and_the_rules_get_their_loop_back(tmp_path):
    """Searching a subset of the first hops visits a subset of the tree's nodes: the largest
    search of a step takes no more rounds split by direction than whole, nor by first hop than
    by direction; a search goes down a level at most once a round and visits two first hops at
    least. The count's loop is traced into its own program only."""
    own = lanes.while_each
    out = tmp_path / "rounds.json"
    argv = ["--batch", "64", "--steps", "40", "--out", str(out)]
    assert draughts_search_rounds.main(argv) == 0
    assert lanes.while_each is own
    result = json.loads(out.read_text())
    assert result["steps_that_search"] > 0 and result["searching_a_step"] > 0
    rounds = result["rounds_a_step"]
    ways = draughts_search_rounds.WAYS[:3]  # whole, by direction, by first hop
    for measure in ("max", "mean"):
        values = [rounds[way][measure] for way in ways]
        assert values == sorted(values, reverse=True)
    assert rounds["whole"]["max"] >= 2 and rounds["descents"]["max"] <= rounds["whole"]["max"]
