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
    if shutil.which("mcs") and shutil.which("mono"):
        run(["mcs", "-out:" + str(out / "Deal.exe"), os.path.join(HERE, "Deal.cs")])
        built["dotnet"] = lambda seed, n, decks: run(["mono", str(out / "Deal.exe"), str(seed), str(n), str(decks)])
    built["python"] = lambda seed, n, decks: run(
        [sys.executable, "-c", "import random, sys\nrandom.seed(int(sys.argv[1]))\n"
         "for _ in range(int(sys.argv[3])):\n a = list(range(int(sys.argv[2]))); random.shuffle(a); print(*a)",
         str(seed), str(n), str(decks)])
    return built


FAMILIES = ["java", "glibc-rand", "cpp-mt19937", "cpp-minstd", "php-mt", "python", "dotnet"]
SEEDS_BELOW = {"dotnet": 2**31}  # new Random(int)


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
    seed = random.Random(family).randrange(WINDOW, SEEDS_BELOW.get(family, 2**32) - WINDOW)
    decks = decks_of(tools[family](seed, N, 4))
    window = (seed - WINDOW // 2, seed + WINDOW // 2)
    for records, next_deal, chance_below in (([decks[0]], decks[1], 1e-40), ([d[:5] for d in decks[:3]], decks[3], 1e-6)):
        doc = predict(tmp_path, records, window, "--threads", "2")
        assert doc["verdict"] == "FAIL", doc
        found = [(f["family"], m["seed"]) for f in doc["families"] for m in f["matches"] if m["telling"]]
        assert found == [(family, str(seed))], found
        match = next(m for f in doc["families"] if f["family"] == family for m in f["matches"])
        assert match["explained"] == len(records) and match["next"] == [next_deal]
        assert match["records"] == list(range(1, len(records) + 1))
        assert match["pattern"] == ("one deal" if len(records) == 1 else "one seeding, dealt on")
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


def test_a_dealer_reseeded_every_deal_is_found_with_its_step_and_next_seed(tmp_path):
    # CPython reseeded before each deal with a counter stepping by 1000.
    seed, step = 123_456_789, 1000
    decks = []
    for d in range(4):
        r = random.Random(seed + step * d)
        deck = list(range(N))
        r.shuffle(deck)
        decks.append(deck)
    doc = predict(tmp_path, [d[:5] for d in decks[:3]], (seed - 500, seed + 500), "--family", "python",
                  "--reseed-window", "4000")
    assert doc["verdict"] == "FAIL", doc
    (match,) = doc["families"][0]["matches"]
    assert [(d["seed"], d["reseeded"]) for d in match["dealt"]] == [
        (str(seed + step * d), d > 0) for d in range(3)]
    assert match["pattern"] == "reseeded every deal, the seed stepping by +1000"
    assert match["next_seed"] == str(seed + 3 * step) and match["next"] == [decks[3]]
    # Without the reseeding search the later deals are unexplained: no FAIL.
    doc = predict(tmp_path, [d[:5] for d in decks[:3]], (seed - 500, seed + 500), "--family", "python",
                  "--reseed-window", "0")
    assert doc["verdict"] == "WEAK" and doc["families"][0]["matches"][0]["explained"] == 1


def test_a_java_dealer_seeded_from_a_millisecond_clock_is_found_on_the_clock(tools, tmp_path):
    if "java" not in tools:
        pytest.skip("no JDK here (scripts/setup.sh installs it)")
    seed = 1733318400123  # 2024-12-04 13:20:00.123 UTC
    decks = decks_of(tools["java"](seed, N, 3))
    path = tmp_path / "deals.txt"
    path.write_text("".join(" ".join(map(str, d[:5])) + "\n" for d in decks[:2]))
    doc = json.loads(run([CLI, "predict", str(path), "--family", "java", "--clock",
                          "2024-12-04T13:19:59..2024-12-04T13:20:01", "--clock-unit", "ms", "--json", "-", "--quiet"]))
    f = doc["families"][0]
    assert (f["searched"]["first"], f["searched"]["last"]) == ("1733318399000", "1733318401000")
    (match,) = [m for m in f["matches"] if m["telling"]]
    assert match["seed"] == str(seed) and match["clock"] == "2024-12-04 13:20:00.123 UTC as milliseconds"
    assert match["next"] == [decks[2]]
    text = run([CLI, "predict", str(path), "--family", "java", "--clock", "1733318399..1733318401",
                "--clock-unit", "ms", "--quiet"])
    assert "seed 1733318400123 (2024-12-04 13:20:00.123 UTC as milliseconds) reproduces 2 of 2" in text


@pytest.mark.parametrize("args, says", [
    (["--seeds", "0..9", "--clock", "0..1"], "give one of --seeds, --clock and --since-midnight"),
    (["--clock", "2024-13-01..2024-12-02"], "--clock takes FROM..TO as Unix seconds or UTC dates"),
    (["--clock", "2024-12-02..2024-12-01"], "ends before it starts"),
    (["--since-midnight", "--clock-unit", "ns"], "--clock-unit takes s, ms or us"),
    (["--clock-unit", "ms"], "--clock-unit goes with --clock or --since-midnight"),
])
def test_clock_arguments_are_refused_in_a_line_before_any_search(args, says, tmp_path):
    path = tmp_path / "deals.txt"
    path.write_text("1 2 3 4 5\n")
    done = subprocess.run([CLI, "predict", str(path), "--family", "delphi", *args], capture_output=True, text=True)
    assert done.returncode == 2 and says in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_deals_written_with_card_labels_and_unseen_cards_name_the_seed(tmp_path):
    deals = run([CLI, "predict", "--family", "php-mt", "--deal", "777", "--next", "4", "--labels", "cards"]).split("\n")
    seen = [d.split()[:5] for d in deals[:3]]
    seen[2][0] = "?"  # a card not seen
    path = tmp_path / "deals.txt"
    path.write_text("".join(" ".join(d) + "\n" for d in seen))
    text = run([CLI, "predict", str(path), "--labels", "cards", "--family", "php-mt", "--seeds", "0..2000", "--quiet"])
    assert "seed 777 reproduces 3 of 3 records" in text
    assert "next deal: " + deals[3] in text  # written with the labels
    one_based = [[int(c) + 1 for c in d.split()] for d in run(
        [CLI, "predict", "--family", "php-mt", "--deal", "777", "--next", "2"]).strip().split("\n")]
    path.write_text("".join(" ".join(map(str, d[:5])) + "\n" for d in one_based))
    doc = json.loads(run([CLI, "predict", str(path), "--base", "1", "--family", "php-mt", "--seeds", "0..2000",
                          "--json", "-"]))
    assert [m["seed"] for m in doc["families"][0]["matches"] if m["telling"]] == ["777"]
    bad = subprocess.run([CLI, "predict", str(path), "--labels", "cards", "--family", "php-mt"], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "not one of --labels" in bad.stderr


def test_audit_of_records_searches_the_clock_before_the_file_and_fails_a_predictable_dealer(tmp_path):
    # PHP's mt_srand(time()) at 10:00:00 UTC dealing 20 decks on; the file
    # written that evening. Its decks pass the bias tests; the pass finds it.
    seed = 1796464800  # 2026-12-05 10:00:00 UTC
    path = tmp_path / "decks.txt"
    path.write_text(run([CLI, "predict", "--family", "php-mt", "--deal", str(seed), "--next", "20"]))
    os.utime(path, (seed + 8 * 3600, seed + 8 * 3600))
    doc = json.loads(run([CLI, "audit", str(path), "--quiet", "--json", "-"]))
    assert doc["verdict"] == "FAIL", doc["stats"]["notes"]
    assert doc["predictability"]["predictable"].startswith(f"predictable: php-mt seeded with {seed}")
    # Without the pass, or with the file dated a week later, nothing names it.
    assert json.loads(run([CLI, "audit", str(path), "--quiet", "--json", "-", "--predict-seconds", "0"]))[
        "verdict"] != "FAIL"
    os.utime(path, (seed + 7 * 86400, seed + 7 * 86400))
    later = json.loads(run([CLI, "audit", str(path), "--quiet", "--json", "-"]))
    assert later["verdict"] != "FAIL" and later["predictability"]["predictable"] is None
    searched = later["predictability"]["searched"]
    assert {w["family"] for w in searched} == {"glibc-rand", "delphi", "cpp-minstd", "cpp-mt19937", "php-mt", "python",
                                               "java", "dotnet", "asf-1999"}
    assert any("ruled out" in n or "no seed searched deals" in n for n in later["stats"]["notes"])


def test_audit_predict_seconds_is_checked_before_any_work(tmp_path):
    path = tmp_path / "decks.txt"
    path.write_text("0 1 2 3\n")
    for bad in ("-1", "soon", "nan"):
        done = subprocess.run([CLI, "audit", str(path), "--predict-seconds", bad], capture_output=True, text=True)
        assert done.returncode == 2 and "--predict-seconds takes" in done.stderr, done.stderr
    done = subprocess.run([CLI, "audit", "--n", "4", "--trials", "100", "--predict-seconds", "1"], capture_output=True,
                          text=True)
    assert done.returncode == 2 and "are for" in done.stderr


def test_a_search_stopped_by_ctrl_c_goes_on_from_its_checkpoint_to_the_same_matches(tmp_path):
    import signal
    import time
    deck = run([CLI, "predict", "--family", "php-mt", "--deal", "25000000"]).split()
    path = tmp_path / "deals.txt"
    path.write_text(" ".join(deck[:2]) + "\n")  # two cards: thousands of chance matches, in every chunk
    args = [CLI, "predict", str(path), "--family", "php-mt", "--seeds", "0..30000000", "--json", "-", "--quiet",
            "--threads", "1", "--reseed-window", "0"]
    whole = json.loads(run(args))
    saved = tmp_path / "search.checkpoint"
    p = subprocess.Popen(args + ["--checkpoint", str(saved), "--checkpoint-every", "0.05"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    for _ in range(600):
        if saved.exists() or p.poll() is not None:
            break
        time.sleep(0.01)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    stopped = json.loads(out)
    assert stopped["families"][0]["searched"]["complete"] is False
    resumed = json.loads(run(args + ["--checkpoint", str(saved), "--resume", str(saved)]))
    assert resumed["families"] == whole["families"] and len(whole["families"][0]["matches"]) > 1000
    # Another search's checkpoint is refused in a line, before any work.
    other = subprocess.run([CLI, "predict", str(path), "--family", "php-mt", "--seeds", "0..9", "--threads", "1",
                            "--reseed-window", "0", "--checkpoint", str(saved), "--resume", str(saved)],
                           capture_output=True, text=True)
    assert other.returncode == 2 and "saved another search" in other.stderr, other.stderr
