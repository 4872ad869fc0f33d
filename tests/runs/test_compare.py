import json

from newsdedup.runs.compare import result_difference


def _png(width: int, height: int) -> bytes:
    return (b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + width.to_bytes(4, "big")
            + height.to_bytes(4, "big") + b"\x08\x06\x00\x00\x00")


def test_text_files_compare_byte_for_byte(tmp_path):
    (tmp_path / "a.csv").write_text("x\n1\n")
    (tmp_path / "b.csv").write_text("x\n1\n")
    (tmp_path / "c.csv").write_text("x\n2\n")
    assert result_difference(tmp_path / "a.csv", tmp_path / "b.csv") is None
    assert "differs" in result_difference(tmp_path / "a.csv", tmp_path / "c.csv")
    assert "no longer writes" in result_difference(tmp_path / "a.csv", tmp_path / "none.csv")


def test_json_ignores_environment_only(tmp_path):
    base = {"n": 3, "environment": {"numpy": "1"}, "inner": {"environment": {"x": 1}, "k": 2}}
    other = {"n": 3, "environment": {"numpy": "2"}, "inner": {"environment": {"x": 9}, "k": 2}}
    (tmp_path / "a.json").write_text(json.dumps(base))
    (tmp_path / "b.json").write_text(json.dumps(other))
    (tmp_path / "c.json").write_text(json.dumps(other | {"n": 4}))
    assert result_difference(tmp_path / "a.json", tmp_path / "b.json") is None
    assert result_difference(tmp_path / "a.json", tmp_path / "c.json") is not None


def test_png_compares_pixel_size(tmp_path):
    (tmp_path / "a.png").write_bytes(_png(640, 480) + b"one rendering")
    (tmp_path / "b.png").write_bytes(_png(640, 480) + b"another rendering")
    (tmp_path / "c.png").write_bytes(_png(640, 481))
    assert result_difference(tmp_path / "a.png", tmp_path / "b.png") is None
    assert "(640, 481)" in result_difference(tmp_path / "a.png", tmp_path / "c.png")
