"""benchmarks/sase1_side_by_side.py, the parts that run without the SASE 1.0 jar: the parser of the jar's
output, the command line and the files it is given, the match-count warning, and the skip path."""
from __future__ import annotations

import re

from benchmarks import sase1_side_by_side as S
from cepkit.front.language import parse
from cepkit.reference.sase1.stock_stream import parse_config

# Built from SASE 1.0's print statements (github.com/haopeng/sase, commit cd0bd56):
# src/edu/umass/cs/sase/UI/CommandLineUI.java, main(), the repeat loop's
#   System.out.println("\nRepeat No." + (i+1) +" is started...");
#   System.out.println("\nProfiling results for repeat No." + (i+1) +" are as follows:");
# src/edu/umass/cs/sase/engine/Profiling.java, printProfiling():
#   System.out.println();  System.out.println("**************Profiling Numbers*****************");
#   "Total Running Time: " + totalRunTime + " nanoseconds";  "Number Of Events Processed: " + numberOfEvents;
#   "Number Of Runs Created: " + numberOfRuns;  "Number Of Matches Found: " + numberOfMatches;
#   if(ConfigFlags.hasNegation) "Number of Negated Matches: " + negatedMatches;
#   if(totalRunTime > 0) "Throughput: " + throughput1 + " events/second"
# The figures are made up for the parser; repeat 2 has the negation line, repeat 3 a zero time (no Throughput).
SAMPLE = """
Repeat No.1 is started...

Profiling results for repeat No.1 are as follows:

**************Profiling Numbers*****************
Total Running Time: 412345678 nanoseconds
Number Of Events Processed: 100000
Number Of Runs Created: 2381
Number Of Matches Found: 70
Throughput: 242512 events/second

Repeat No.2 is started...

Profiling results for repeat No.2 are as follows:

**************Profiling Numbers*****************
Total Running Time: 98765432 nanoseconds
Number Of Events Processed: 100000
Number Of Runs Created: 2381
Number Of Matches Found: 70
Number of Negated Matches: 3
Throughput: 1012500 events/second

Repeat No.3 is started...

Profiling results for repeat No.3 are as follows:

**************Profiling Numbers*****************
Total Running Time: 0 nanoseconds
Number Of Events Processed: 0
Number Of Runs Created: 0
Number Of Matches Found: 0
"""


def test_parser_reads_each_repeat_of_the_jar_profiling_print():
    got = S.parse_output(SAMPLE)
    assert [r.number for r in got] == [1, 2, 3]
    assert (got[0].nanoseconds, got[0].events, got[0].runs, got[0].matches, got[0].throughput) == \
        (412345678, 100000, 2381, 70, 242512)
    assert (got[1].nanoseconds, got[1].matches, got[1].throughput) == (98765432, 70, 1012500)
    assert (got[2].nanoseconds, got[2].matches, got[2].throughput) == (0, 0, None)
    assert S.parse_output("Exception in thread \"main\" java.lang.NullPointerException\n") == []


def test_jar_command_line_and_classpath(tmp_path):
    jar = tmp_path / "build" / "sase.jar"
    jeval = tmp_path / "lib" / "jeval.jar"
    jar.parent.mkdir()
    jar.write_bytes(b"")
    assert S.classpath(str(jar)) == str(jar)  # no jeval beside it
    jeval.parent.mkdir()
    jeval.write_bytes(b"")
    cp = S.classpath(str(jar))
    assert cp.split(S.os.pathsep) == [str(jar), str(jeval.resolve())]
    assert S.classpath(str(jar), "/x/jeval.jar").endswith("/x/jeval.jar")
    # relative paths become absolute: the jar runs in a temporary folder (a relative --jar was not found there)
    relative = S.os.path.relpath(jar)
    assert S.classpath(relative, S.os.path.relpath(jeval)).split(S.os.pathsep) == [str(jar.resolve()),
                                                                                      str(jeval.resolve())]
    assert S.jar_command("java", cp, "/t/q1.query", "/t/q1.stream", "-Xmx8g -server") == \
        ["java", "-Xmx8g", "-server", "-cp", cp, "edu.umass.cs.sase.UI.CommandLineUI", "/t/q1.query", "/t/q1.stream",
         "0"]
    cmd = S.cepkit_command("/t/q1.query", "/t/q1.csv", "/t/q1.jsonl")
    assert cmd[1:6] == ["-m", "cepkit", "run", "/t/q1.query", "/t/q1.csv"]
    assert cmd[cmd.index("--engine") + 1] == "optimized" and cmd[cmd.index("--dialect") + 1] == "sase1"


def test_queries_are_in_the_jar_line_format_and_read_the_same_by_cepkit():
    strategies = set()
    for name, (text, _params) in S.QUERIES.items():
        lines = [line for line in text.splitlines() if line.strip()]
        # NFA.parseNfaFile / parseFastQueryLine: PATTERN first, then one WHERE / AND / WITHIN clause a line;
        # a predicate belongs to the state its first letter names ('a' the first)
        assert lines[0].startswith("PATTERN SEQ("), name
        assert all(re.match(r"(WHERE|AND|WITHIN) ", line) for line in lines[1:]), name
        tags = [part.split()[1][0] for part in lines[0][lines[0].index("(") + 1:lines[0].index(")")].split(",")]
        assert tags == [chr(ord("a") + k) for k in range(len(tags))], name
        for line in lines[1:]:
            if line.startswith("AND"):
                token = line.split()[1]
                assert token.startswith("[") or token[0] in tags, (name, line)
        query = parse(text, dialect="sase1")
        assert query.window.amount == int(lines[-1].split()[1])
        strategies.add(query.strategy.name)
    assert strategies == {"PARTITION_CONTIGUITY", "SKIP_TILL_NEXT_MATCH", "SKIP_TILL_ANY_MATCH"}


def test_stream_file_is_the_jar_format_and_rebuilds_the_same_config():
    for _text, params in S.QUERIES.values():
        text = S.stream_text(params, 1234)
        lines = text.splitlines()
        # ParseStockStreamConfig: `name = value` lines read until `end` (a blank line would not parse)
        assert lines[-1] == "end" and all(" = " in line for line in lines[:-1])
        config = parse_config(text)
        assert config.streamSize == 1234 and all(getattr(config, k) == v for k, v in params.items())


def test_match_counts_that_differ_are_a_warning():
    same = {k: S.Best(1.0, {70}) for k in ("jar engine", "jar whole", "cepkit engine", "cepkit whole")}
    assert S.warnings("q1", 100000, same) == []
    differ = dict(same, **{"cepkit engine": S.Best(0.5, {71})})
    (line,) = S.warnings("q1", 100000, differ)
    assert line.startswith("WARNING: q1 at 100000 events: match counts differ") and "[71]" in line
    failed = dict(same, **{"jar engine": S.Best(None, set(), "no Profiling output")})
    assert S.warnings("q1", 10, failed)[0].startswith("WARNING: q1 at 10 events: the jar failed")
    assert "failed" in S.row("q1", 10, "engine", failed["jar engine"], same["cepkit engine"])
    assert S.row("q1", 10, "engine", S.Best(2.0, {70}), S.Best(0.5, {70})).split()[5] == "4.00"


def test_skipped_without_the_jar_or_without_java(tmp_path, capsys):
    assert S.main(["--jar", str(tmp_path / "sase.jar")]) == 0
    assert capsys.readouterr().out.startswith("skipped: no SASE 1.0 jar at")
    assert S.main([]) == 0
    assert capsys.readouterr().out.startswith("skipped: no SASE 1.0 jar at None")
    jar = tmp_path / "sase.jar"
    jar.write_bytes(b"")
    assert S.main(["--jar", str(jar), "--java", str(tmp_path / "no-java")]) == 0
    assert capsys.readouterr().out.startswith("skipped: Java not available")


def test_asv_tracks_the_side_by_side_queries_and_the_engine_agrees_with_the_reference():
    from benchmarks import sase1_optimized as O
    from benchmarks.suites import bench_sase1 as A
    from cepkit import compile

    tracked = set(O.QUERIES) | set(A.Sase1SideBySide.params[0])
    assert set(S.QUERIES) <= tracked and A.Sase1SideBySide.params[0] == ["seq3pc", "seq3next"]
    for query in A.Sase1SideBySide.params[0]:
        bench = A.Sase1SideBySide()
        bench.setup(query, 2_000)
        want = len(compile(S.QUERIES[query][0], engine="reference", dialect="sase1").run(bench.batch))
        assert bench.track_matches(query, 2_000) == want > 0
        assert bench.track_events_per_second(query, 2_000) > 0
