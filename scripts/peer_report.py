"""docs/peers.md: the peers' results on the conformance vectors (`make docs` runs it; docs/peers.md says how).

    python scripts/peer_report.py           # render docs/peers.md from docs/data/peers/ (no peer needed)
    python scripts/peer_report.py --run     # first rerun the peer (pip install 'cepkit[peers]'), rewrite its results
    python scripts/peer_report.py --run-jar # first rerun the SASE 1.0 jar (Java, ../shared/peers/sase1/sase.jar)
    python scripts/peer_report.py --check   # exit 1 when the page is stale or a failure is not classified

Running the peer takes about 20 s on 2 cores, and `make docs` must work without the `peers` extra, so the
results are committed (docs/data/peers/pandas_mr.json) and the page renders from them.
"""
from __future__ import annotations

import argparse
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "data" / "peers"
PAGE = ROOT / "docs" / "peers.md"
ADAPTER = "cepkit.conformance.adapters.pandas_mr:PandasMatchRecognize"
TIMEOUT = 10     # seconds a vector may take (MR-pattern-too-large runs past it on the peer)
ARGS = ["--adapter", ADAPTER, "--language", "sql", "--timeout", str(TIMEOUT)]
JAR = Path(os.environ.get("CEPKIT_SASE1_JAR", str(ROOT.parent / "shared" / "peers" / "sase1" / "sase.jar")))
JAR_ARGS = ["--language", "sase1", "--command", "python -m cepkit.conformance.adapters.sase1_jar --jar JAR"]


def rerun(args: list[str], name: str, about: dict) -> None:
    """Run the kit with `args`, its per-vector outcomes (JUnit) and `about` (with the run's seconds) into
    docs/data/peers/<name>.json."""
    from cepkit.conformance.adapters import results

    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "kit.xml"
        t0 = time.monotonic()
        subprocess.run([sys.executable, "-m", "cepkit", "conformance", *args, "-q", "--junitxml", str(junit)],
                       check=False, cwd=ROOT, stdout=subprocess.DEVNULL)
        seconds = time.monotonic() - t0
        vectors = results.from_junit(junit)
    results.save(DATA / f"{name}.json", {**about, "seconds": round(seconds, 1)}, vectors)
    print(f"{len(vectors)} vectors in {seconds:.1f} s -> {DATA / f'{name}.json'}")


def run_peer() -> None:
    """Rerun pandas-match-recognize on the sql vectors (docs/data/peers/pandas_mr.json)."""
    from importlib.metadata import version

    rerun([*ARGS, "-n", "2"], "pandas_mr",
          {"peer": f"pandas-match-recognize {version('pandas-match-recognize')}",
           "command": "cepkit conformance " + " ".join(ARGS) + " -n 2",
           "machine": f"{os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()}"})


def run_jar() -> None:
    """Rerun the SASE 1.0 jar on the sase1 vectors (Java and the jar at ../shared/peers/sase1/ or
    $CEPKIT_SASE1_JAR; docs/data/peers/sase1_jar.json)."""
    command = f"{sys.executable} -m cepkit.conformance.adapters.sase1_jar --jar {JAR}"
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    rerun(["--language", "sase1", "--command", command], "sase1_jar",
          {"peer": "SASE 1.0 jar (sase.jar, ../shared/peers/sase1/)",
           "command": "cepkit conformance " + shlex.join(JAR_ARGS), "machine": f"{os.cpu_count()} cores, {java}"})


def page() -> tuple[str, list[str]]:
    """The page's text and the classification's problems."""
    from cepkit.conformance.adapters import report

    return report.page(DATA)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", action="store_true", help="rerun the peer first (needs pandas-match-recognize)")
    ap.add_argument("--run-jar", action="store_true", help="rerun the SASE 1.0 jar first (needs Java and the jar)")
    ap.add_argument("--check", action="store_true", help="exit 1 when docs/peers.md is stale or a failure unclassified")
    args = ap.parse_args(argv)
    if args.run:
        run_peer()
    if args.run_jar:
        run_jar()
    text, problems = page()
    for p in problems:
        print(f"not classified right: {p}", file=sys.stderr)
    if args.check:
        stale = not PAGE.is_file() or PAGE.read_text() != text
        if stale:
            print(f"{PAGE} is stale: run python scripts/peer_report.py", file=sys.stderr)
        return 1 if stale or problems else 0
    PAGE.write_text(text)
    print(f"wrote {PAGE}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
