import json

from newsdedup.runs.load import load_named


def test_name_and_rejects_are_reported(tmp_path):
    path = tmp_path / "feeds" / "today.jsonl"
    path.parent.mkdir()
    rows = [{"id": "a", "title": "첫 기사", "summary": ""}, {"id": "", "title": "no id"}]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")
    said: list[str] = []
    corpus, name = load_named(path, progress=said.append)
    assert name == "feeds" and len(corpus.items) == 1 and corpus.dialect == "standard"
    assert said[0].startswith(f"loading {path}") and "rejected today.jsonl" in said[1]
    assert load_named(path, name="other")[1] == "other"
