"""melange predict against the real runtimes: each family's decks are dealt
by the library itself (a JDK, php-cli, CPython, g++/libstdc++, glibc) from a
random seed, and melange must name the family and the seed, from one whole
deck and from three 5-card deals, and predict the next deal exactly.

The seed is random, the window searched around it small (the whole 32-bit
spaces take minutes: `melange bench --mode predict` is where they are
timed), and every family is searched, so a wrong family matching is seen too.
"""
import json
import os
import random
import shutil
import subprocess
import sys

import pytest

CLI = os.environ.get("MELANGE_CLI", "melange")
HERE = os.path.dirname(os.path.abspath(__file__))
WINDOW = 20_000
N = 52


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, check=True, **kw).stdout


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    out = tmp_path_factory.mktemp("runtimes")
    built = {}
    if shutil.which("javac") and shutil.which("java"):
        run(["javac", "-d", str(out), os.path.join(HERE, "Deal.java")])
        built["java"] = lambda seed, n, decks: run(["java", "-cp", str(out), "Deal", str(seed), str(n), str(decks)])
    if shutil.which("cc"):
        run(["cc", "-O2", "-o", str(out / "deal_glibc"), os.path.join(HERE, "deal_glibc.c")])
        built["glibc-rand"] = lambda seed, n, decks: run([str(out / "deal_glibc"), str(seed), str(n), str(decks)])
    if shutil.which("c++"):
        run(["c++", "-O2", "-std=c++17", "-o", str(out / "deal_cpp"), os.path.join(HERE, "deal_cpp.cpp")])
        for family, engine in (("cpp-mt19937", "mt"), ("cpp-minstd", "minstd")):
            built[family] = (lambda engine: lambda seed, n, decks: run(
                [str(out / "deal_cpp"), engine, str(seed), str(n), str(decks)]))(engine)
    if shutil.which("php"):
        built["php-mt"] = lambda seed, n, decks: run(
            ["php", "-r", "mt_srand((int)$argv[1]); for ($d = 0; $d < (int)$argv[3]; ++$d) "
             "{ $a = range(0, (int)$argv[2] - 1); shuffle($a); echo implode(' ', $a), \"\\n\"; }",
             str(seed), str(n), str(decks)])
    built["python"] = lambda seed, n, decks: run(
        [sys.executable, "-c", "import random, sys\nrandom.seed(int(sys.argv[1]))\n"
         "for _ in range(int(sys.argv[3])):\n a = list(range(int(sys.argv[2]))); random.shuffle(a); print(*a)",
         str(seed), str(n), str(decks)])
    return built


FAMILIES = ["java", "glibc-rand", "cpp-mt19937", "cpp-minstd", "php-mt", "python"]


def predict(tmp_path, records, seeds, *extra):
    path = tmp_path / "deals.txt"
    path.write_text("".join(" ".join(map(str, r)) + "\n" for r in records))
    return json.loads(run([CLI, "predict", str(path), "--seeds", f"{seeds[0]}..{seeds[1]}", "--json", "-",
                           "--quiet", *extra]))


def decks_of(text):
    return [list(map(int, line.split())) for line in text.strip().splitlines() if not line.startswith("#")]


@pytest.mark.parametrize("family", FAMILIES)
def test_the_seed_behind_a_runtimes_deals_is_found_and_the_next_deal_predicted(family, tools, tmp_path):
    if family not in tools:
        pytest.skip(f"no runtime for {family} here (scripts/setup.sh installs it)")
    seed = random.Random(family).randrange(WINDOW, 2**32 - WINDOW)
    decks = decks_of(tools[family](seed, N, 4))
    window = (seed - WINDOW // 2, seed + WINDOW // 2)
    for records, next_deal, chance_below in (([decks[0]], decks[1], 1e-40), ([d[:5] for d in decks[:3]], decks[3], 1e-6)):
        doc = predict(tmp_path, records, window, "--threads", "2")
        assert doc["verdict"] == "FAIL", doc
        found = [(f["family"], m["seed"]) for f in doc["families"] for m in f["matches"] if m["telling"]]
        assert found == [(family, str(seed))], found
        match = next(m for f in doc["families"] if f["family"] == family for m in f["matches"])
        assert match["explained"] == len(records) and match["next"] == [next_deal]
        assert next(f for f in doc["families"] if f["family"] == family)["chance_matches_all"] < chance_below


def test_one_five_card_deal_reports_its_chance_matches(tools, tmp_path):
    doc = predict(tmp_path, [[3, 17, 29, 41, 50]], (0, 999_999), "--family", "delphi,java")
    for f in doc["families"]:
        assert f["chance_matches"] == pytest.approx(1e6 / (52 * 51 * 50 * 49 * 48))
        assert not any(m["telling"] for m in f["matches"])


def test_fair_records_match_no_seed(tmp_path):
    fair = decks_of(run([CLI, "sample", "--n", str(N), "--count", "3", "--seed", "11"]))
    urandom = [random.Random(os.urandom(16)).sample(range(N), N)]
    for records in (fair, urandom):
        doc = predict(tmp_path, records, (0, 49_999))
        assert doc["verdict"] == "PASS" and not any(f["matches"] for f in doc["families"]), doc


def test_matches_are_the_same_on_one_and_two_threads(tools, tmp_path):
    if "cpp-minstd" not in tools:
        pytest.skip("no c++ here")
    deal = decks_of(tools["cpp-minstd"](12345, N, 1))[0][:3]  # three cards: many chance matches
    one, two = (predict(tmp_path, [deal], (0, 300_000), "--family", "cpp-minstd,delphi", "--threads", t)
                for t in ("1", "2"))
    assert one["families"] == two["families"] and any(f["matches"] for f in one["families"])


def test_asf_1999_deck_from_the_first_five_cards_of_a_morning(tmp_path):
    # ASF dealt from the milliseconds since midnight: the deck of 09:30:00.250,
    # its first five cards seen, is found among the morning's seeds.
    seed = (9 * 3600 + 30 * 60) * 1000 + 250
    whole = decks_of(run([CLI, "predict", "--family", "asf-1999", "--deal", str(seed), "--next", "2", "-"], input=""))
    doc = predict(tmp_path, [whole[0][:5]], (9 * 3600 * 1000, 10 * 3600 * 1000), "--family", "asf-1999")
    matches = doc["families"][0]["matches"]
    assert str(seed) in [m["seed"] for m in matches]
