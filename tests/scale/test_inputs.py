"""Input files melange did not write are bounded before they are parsed:
merge pieces, models, labels and weights (contract §7). Each
hostile file is refused, or read, within a small peak resident size."""
import json

import pytest

from scale_support import CLI, assert_same_result, audit_args, one_process, run, run_measured


def piece(tmp_path, first, trials, name):
    path = tmp_path / name
    run(CLI, *audit_args(["--n", "5", "--first", first, "--trials", trials], path))
    return path


def with_field(tmp_path, name, key, raw_value):
    """A real piece with one more top-level field, its JSON text as given."""
    doc = piece(tmp_path, 0, 1000, "src-" + name).read_text()
    crafted = tmp_path / name
    crafted.write_text(doc.replace("{", "{\"" + key + "\": " + raw_value + ",", 1))
    return crafted


def one_line_refusal(status, err, *words):
    lines = [line for line in err.splitlines() if line]
    assert status == 2 and len(lines) == 1, err
    for w in words:
        assert w in err, err


def test_a_long_string_in_a_field_merge_does_not_read_is_refused_unheld(tmp_path):
    crafted = with_field(tmp_path, "long.json", "comment", "\"" + "x" * (96 << 20) + "\"")
    status, _, err, peak = run_measured([CLI, "merge", crafted, "--memory-cap", "32M"])
    one_line_refusal(status, err, "longer than 65536 bytes")
    assert peak < 48, f"{peak:.0f} MiB for a 96 MiB string under a 32 MiB cap"


def test_arrays_nested_a_million_deep_are_refused_not_crashed_on(tmp_path):
    crafted = with_field(tmp_path, "deep.json", "extra", "[" * 1_000_000 + "]" * 1_000_000)
    status, _, err, peak = run_measured([CLI, "merge", crafted])
    one_line_refusal(status, err, "nests arrays or objects more than 32 deep")


@pytest.mark.parametrize("where", ["inside", "top"])
def test_many_keys_are_passed_over_in_linear_time(tmp_path, where):
    # 1,000,000 keys in one object: an ordered map's insertion is quadratic
    # (hours); the fields merge does not read are never inserted.
    keys = ", ".join(f"\"k{i}\": {i}" for i in range(1_000_000))
    a = with_field(tmp_path, "a.json", "extra", "{" + keys + "}") if where == "inside" else tmp_path / "a.json"
    if where == "top":
        src = piece(tmp_path, 0, 1000, "src-a.json").read_text()
        a.write_text(src.replace("{", "{" + keys + ",", 1))
    b = piece(tmp_path, 1000, 1000, "b.json")
    merged = tmp_path / "merged.json"
    run(CLI, "merge", a, b, "--json", merged, timeout=120)
    assert_same_result(merged, one_process(tmp_path, ["--n", "5", "--trials", "2000"]))


@pytest.mark.parametrize("field,value,why", [("format", "\"melange-exact\"", "is a \"melange-exact\" document"),
                                             ("format_version", "2", "is format version 2")])
def test_merge_reads_the_documents_it_knows(tmp_path, field, value, why):
    doc = json.loads(piece(tmp_path, 0, 1000, "src.json").read_text())
    doc[field] = json.loads(value)
    crafted = tmp_path / "other.json"
    crafted.write_text(json.dumps(doc))
    p = run(CLI, "merge", crafted, check=False)
    one_line_refusal(p.returncode, p.stderr, why)


def test_a_model_file_larger_than_the_cap_allows_is_refused_before_it_is_read(tmp_path):
    model = tmp_path / "model.json"
    run(CLI, "exact", "--n", "5", "--json", model)
    model.write_text(model.read_text() + " " * (40 << 20))  # still the same JSON
    status, _, err, peak = run_measured([CLI, "audit", "--n", "5", "--trials", "1e4", "--model", model,
                                         "--memory-cap", "256M"])
    one_line_refusal(status, err, "--model file", "raise --memory-cap")
    assert peak < 48, f"{peak:.0f} MiB"
    ok = run(CLI, "audit", "--n", "5", "--trials", "1e4", "--model", model, "--memory-cap", "1G", "--quiet")
    assert ok.returncode == 0


def test_a_labels_file_larger_than_any_list_is_refused_before_it_is_read(tmp_path):
    records = tmp_path / "r.txt"
    records.write_text("a b c\nc b a\n")
    labels = tmp_path / "labels.txt"
    labels.write_text("a b c " + "z" * (64 << 20))
    status, _, err, peak = run_measured([CLI, "audit", records, "--labels", labels])
    one_line_refusal(status, err, "--labels file", "bytes")
    assert peak < 48, f"{peak:.0f} MiB"
    # Many labels are checked for repeats in linear time: 60,000 distinct
    # ones are read at once (then refused for not matching the records).
    labels.write_text("\n".join(f"L{i}" for i in range(60_000)))
    p = run(CLI, "audit", records, "--labels", labels, check=False, timeout=60)
    one_line_refusal(p.returncode, p.stderr, "60000")
    labels.write_text("a b c a")
    p = run(CLI, "audit", records, "--labels", labels, check=False)
    one_line_refusal(p.returncode, p.stderr, "names 'a' twice")
    p = run(CLI, "audit", records, "--labels", "a,b,c#", check=False)
    one_line_refusal(p.returncode, p.stderr, "cannot hold '#'")


def test_a_weights_file_is_bounded_before_it_is_parsed(tmp_path):
    weights = tmp_path / "w.txt"
    weights.write_text("1," * (50 << 20))
    status, _, err, peak = run_measured([CLI, "audit", "--algo", "weighted", "--n", "4", "--weights", weights,
                                         "--trials", "1e3"])
    one_line_refusal(status, err, "--weights file", "bytes")
    assert peak < 48, f"{peak:.0f} MiB"
    weights.write_text("1," * 70_000)
    p = run(CLI, "audit", "--algo", "weighted", "--n", "4", "--weights", weights, "--trials", "1e3", check=False)
    one_line_refusal(p.returncode, p.stderr, "more than")


def test_a_merge_too_large_for_the_cap_is_refused_from_the_pieces_heads(tmp_path):
    # A piece's head names its job (n = 12) and its first counts (a rank
    # histogram of 12! bins, 3.8 GB): refused before the rest of the file is
    # read; here the rest is not even JSON, and the refusal is still the cap's.
    text = piece(tmp_path, 0, 1000, "src.json").read_text()
    head = text[:text.index("\"histogram\": [") + len("\"histogram\": [")]
    crafted = tmp_path / "big.json"
    crafted.write_text(head.replace("\"n\": 5,", "\"n\": 12,") + "6,\n@@@ the rest of a very large file")
    p = run(CLI, "merge", crafted, piece(tmp_path, 1000, 1000, "b.json"), "--memory-cap", "1G", check=False)
    one_line_refusal(p.returncode, p.stderr, "n = 12", "raise --memory-cap")
