#!/usr/bin/env python3
"""Every kind of JSON document melange writes, checked against its schema
in docs/schema/ (contract §8), and the 64-bit fields read back
exactly by a reader that keeps JSON numbers as doubles, as jq and Node do.

Usage: schema_check.py MELANGE SCHEMA_DIR
"""
import json
import pathlib
import subprocess
import sys
import tempfile

import jsonschema

melange, schema_dir = sys.argv[1], pathlib.Path(sys.argv[2]).resolve()


def run(*args, stdin=None):
    p = subprocess.run([melange, *map(str, args)], input=stdin, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"melange {' '.join(map(str, args))}: exit {p.returncode}: {p.stderr}")
    return p.stdout


def errors_of(doc, where):
    fmt = doc.get("format")
    path = schema_dir / f"{fmt}.schema.json"
    if not path.exists():
        sys.exit(f"{where}: no schema for format {fmt!r}")
    schema = json.loads(path.read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    resolver = jsonschema.RefResolver(base_uri=schema_dir.as_uri() + "/", referrer=schema)
    return [f"{'/'.join(map(str, e.path))}: {e.message[:200]}"
            for e in sorted(cls(schema, resolver=resolver).iter_errors(doc), key=lambda e: list(e.path))]


def validate(doc, where):
    errors = errors_of(doc, where)
    for e in errors:
        print(f"FAIL  {where}: {e}")
    if not errors:
        print(f"ok    {where}: {doc['format']}")
    return not errors


def documents(tmp):
    """(what, document) for every command and kind of result."""
    rec = tmp / "records.txt"
    rec.write_text(run("sample", "--n", 5, "--count", 3000, "--seed", 3))
    npy = tmp / "records.npy"
    run("sample", "--n", 5, "--count", 3000, "--seed", 3, "--format", "npy", "--output", npy)
    deals = tmp / "deals.txt"
    deals.write_text(run("sample", "--algo", "partial", "--n", 8, "--k", 3, "--count", 3000))
    exact = tmp / "exact.json"
    run("exact", "--algo", "naive-swap", "--n", 4, "--json", exact)
    deals_52 = tmp / "java.txt"  # java's deals of seed 4242: a match, its next deal
    deals_52.write_text(run("predict", "--family", "java", "--deal", 4242, "--next", 2))
    piece_a, piece_b = tmp / "a.json", tmp / "b.json"
    run("audit", "--n", 5, "--trials", 2000, "--quiet", "--json", piece_a)
    run("audit", "--n", 5, "--trials", 2000, "--first", 2000, "--quiet", "--json", piece_b)
    cases = {
        "audit, built in": ["audit", "--trials", 10000, "--position"],
        "audit, serial": ["audit", "--n", 5, "--trials", 20000, "--serial"],
        "audit, deals and hands": ["audit", "--algo", "partial", "--n", 52, "--k", 5, "--trials", 20000, "--hands"],
        "audit, weighted": ["audit", "--algo", "weighted", "--weights", "1,2,3", "--n", 3, "--trials", 5000],
        "audit, a model": ["audit", "--algo", "naive-swap", "--n", 4, "--trials", 10000, "--model", exact],
        "audit, records (text)": ["audit", rec],
        "audit, records (npy, lags)": ["audit", npy, "--lag", "1,2"],
        "audit, deals read": ["audit", deals, "--n", 8, "--k", 3, "--hands"],
        "audit, no verdict": ["audit", "--n", 9, "--trials", 100],
        "merge": ["merge", piece_a, piece_b],
        "exact": ["exact", "--algo", "sort-binary-insertion", "--n", 4],
        "exact, deals": ["exact", "--algo", "partial", "--n", 5, "--k", 2],
        "exact, riffles": ["exact", "--algo", "riffle", "--riffles", 7, "--n", 52],
        "audit, riffles against their law": ["audit", "--algo", "riffle", "--riffles", 7, "--n", 52, "--trials", 3000,
                                             "--model", "exact"],
        "exact, shelves": ["exact", "--algo", "shelf", "--shelves", 10, "--passes", 2, "--n", 52],
        "audit, shelves against their law": ["audit", "--algo", "shelf", "--shelves", 10, "--n", 52, "--trials", 3000,
                                             "--model", "exact"],
        "sample": ["sample", "--n", 6, "--count", 4, "--output", "/dev/null"],
        "words": ["words", "--count", 4],
        "bounded": ["bounded", "--range", 6, "--count", 4],
        "reach": ["reach", "--n", 52],
        "version": ["version"],
        "bench": ["bench", "--n", 4, "--seconds", 0.02, "--quiet"],
        "bench, predict": ["bench", "--mode", "predict", "--family", "delphi,php-mt", "--threads", 1, "--seconds", 0.05,
                           "--quiet"],
        "predict": ["predict", deals_52, "--seeds", "1000..9000", "--family", "java,delphi", "--quiet"],
    }
    for what, args in cases.items():
        quiet = ["--quiet"] if args[0] == "audit" else []
        yield what, json.loads(run(*args, *quiet, "--json", "-"))


def seeds_read_back_exactly():
    """The default seed passes 2^53: a reader that turns every JSON number
    into a double (jq, Node) keeps it only as a string."""
    doc = run("audit", "--trials", 3000, "--quiet", "--json", "-")
    as_doubles = json.loads(doc, parse_int=float)
    exact = json.loads(doc)
    ok = isinstance(as_doubles["seed"], str) and as_doubles["seed"] == exact["seed"] and int(exact["seed"]) > 2**53
    lossy = float(int(exact["seed"])) != int(exact["seed"])
    again = json.loads(run("audit", "--trials", 3000, "--seed", as_doubles["seed"], "--quiet", "--json", "-"))
    ok = ok and lossy and again["histogram"] == exact["histogram"]
    print(("ok    " if ok else "FAIL  ") + f"seed {exact['seed']} read back by a double-only reader and rerun")
    return ok


def main():
    good = True
    with tempfile.TemporaryDirectory() as d:
        for what, doc in documents(pathlib.Path(d)):
            good = validate(doc, what) and good
    good = seeds_read_back_exactly() and good
    # A schema that cannot fail checks nothing: a document with a number
    # seed and a document with no verdict field must be refused.
    doc = json.loads(run("audit", "--trials", 3000, "--quiet", "--json", "-"))
    for name, broken in (("seed as a number", dict(doc, seed=int(doc["seed"]))),
                         ("no verdict", {k: v for k, v in doc.items() if k != "verdict"}),
                         ("records without their input", dict(doc, source="records"))):
        refused = errors_of(broken, name)
        print(("ok    " if refused else "FAIL  ") + f"a planted fault is refused: {name}" +
              (f" ({refused[0]})" if refused else ""))
        good = good and bool(refused)
    sys.exit(0 if good else 1)


main()
