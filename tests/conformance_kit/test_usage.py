"""`cepkit conformance` usage errors: exit 2 with a message that says what is wrong, before any vector runs."""
from __future__ import annotations

import pytest

from cepkit.cli import main


@pytest.mark.parametrize("argv, message", [
    (["--engine", "nope"], "--engine nope: no such engine"),
    (["--engine", "gpu", "--language", "afa"], "--engine gpu runs no afa vectors"),
    (["--engine", "reference", "--adapter", "x:Y"], "not allowed with argument"),
    (["--adapter", "no_such_module:Engine"], "cannot load it: ModuleNotFoundError"),
    (["--adapter", "json"], "--adapter takes module:Class"),
    (["--adapter", "json:dumps"], "has no compile() method"),
    (["--command", "no-such-program-xyz --flag"], "'no-such-program-xyz' is not an executable"),
    (["--command", "python 'unclosed"], "No closing quotation"),
    (["--case", "no-such-case-*"], "no vector to run"),
    (["--language", "cobol"], "invalid choice: 'cobol'"),
    (["--timeout", "0", "--command", "true"], "--timeout must be a positive number"),
    (["--junit", "/no/such/dir/out.xml"], "--junit /no/such/dir/out.xml: no directory /no/such/dir"),
])
def test_usage_errors(capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        main(["conformance", *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "usage: cepkit conformance" in err
