import pytest

from newsdedup.runs.join import JoinOptions, write_join
from newsdedup.text.shingle import shingle_matrix


def test_lsh_only_when_asked():
    assert JoinOptions().lsh() is None
    mh, banding = JoinOptions(lsh_threshold=0.5, lsh_recall=0.9, num_perm=64).lsh()
    assert mh.num_perm == 64 and banding.bands * banding.rows <= 64


def test_ids_must_match_the_items(tmp_path):
    shingled = shingle_matrix(["abcd", "abce"], 3)
    with pytest.raises(ValueError, match="1 ids for 2 items"):
        write_join(["a"], shingled, 0.5, tmp_path, {})
    write_join(["a", "b"], shingled, 0.3, tmp_path, {"corpus": "t"})
    assert (tmp_path / "pairs.csv").read_text().splitlines()[1].startswith("0,1,a,b,")
