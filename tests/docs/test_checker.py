"""The checker of tests/docs on pages made here: a drifted output, a failing command and a failing snippet
each fail naming the line; a mark without a reason is found; the normalization forgives only what it says."""
from __future__ import annotations

import pytest
from sybil.example import SybilFailure

from tests.docs import normalize, shell
from tests.docs.markdown import command_blocks_without_language, parse
from tests.docs.test_examples import compare

PAGE = """# A page

<!-- file: q.sase -->
```sql
PATTERN SEQ(Stock a, Stock b)
WHERE skip_till_next_match(a, b) {{ [symbol] and b.price > a.price }}
WITHIN 10 minutes
```

```sh
cepkit run q.sase examples/fig3_stream.csv --format csv
```

```text
a,b,ts
{shown}
```

```text
$ cepkit run q.sase no_such.csv   # exit {status}
...
```

```python
assert 1 + 1 == {two}
```

<!-- not-run: -->
```sh
cepkit spark run q.sase x out/
```

```
cepkit devices
```
"""


def evaluate(tmp_path, **fields):
    page = tmp_path / "page.md"
    page.write_text(PAGE.format(**{"shown": "e1,e2,2008-06-10T09:02:00\n...", "status": 3, "two": 2, **fields}))
    document, files = parse(page)
    failures = {}
    for example in document.examples():
        if example.region.block.skip is not None:
            continue
        workdir = shell.prepare(tmp_path / f"run{example.line}", files)
        example.namespace = {"run_block": lambda block, example=example, workdir=workdir: compare(example, workdir)}
        try:
            example.evaluate()
        except (SybilFailure, AssertionError) as failure:
            failures[example.line] = str(failure)
    return document, failures


def test_the_page_as_written_passes(tmp_path):
    assert evaluate(tmp_path)[1] == {}


def test_a_drifted_output_fails_at_its_line(tmp_path):
    failures = evaluate(tmp_path, shown="e1,e2,1213088520000000000\n...")[1]
    assert list(failures) == [10] and "line 11" in failures[10] and "-e1,e2,1213088520000000000" in failures[10]


def test_a_wrong_exit_status_and_a_failing_snippet_fail_at_their_lines(tmp_path):
    failures = evaluate(tmp_path, status=0, two=3)[1]
    assert sorted(failures) == [20, 25], failures
    assert "exited 3, the page expects 0" in failures[20]


def test_marks_and_unlabelled_commands_are_found(tmp_path):
    (tmp_path / "page.md").write_text(PAGE.format(shown="x\ny", status=0, two=2))
    document, _ = parse(tmp_path / "page.md")
    assert [e.region.block.skip for e in document.examples() if e.region.block.skip is not None] == [""]
    assert command_blocks_without_language(tmp_path / "page.md") == [34]


@pytest.mark.parametrize(("shown", "printed", "same"), [
    (["3 matches in 0.39 s (12,000 events/s)"], ["3 matches in 12.5 s (9 events/s)"], True),
    (["3 matches in 0.39 s"], ["4 matches in 0.39 s"], False),
    (["a", "...", "z"], ["a", "b", "c", "z"], True),
    (["a", "...", "z"], ["a", "b"], False),
    (["a", "..."], ["a"], True),
    (["out in /tmp/abc/out"], ["out in /tmp/xyz/out"], True),
])
def test_the_normalization_forgives_only_times_rates_and_scratch_paths(shown, printed, same):
    assert normalize.matches(normalize.normalize(shown), normalize.normalize(printed)) is same
