"""Usage errors that help: the usage of the subcommand the error is in (not the top-level one), and a "did you
mean" for a near-miss option, subcommand or choice (difflib; Python 3.14's argparse has suggest_on_error, the
oldest Python cepkit runs on has not). Exit code 2, as argparse's."""
from __future__ import annotations

import argparse
from typing import Any, Iterable, Sequence

_PARSER = "_cepkit_parser"   # the namespace's note of the (sub)parser that parsed it last


def near(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to `word`, where one is close (a typo, a letter left out or swapped)."""
    import difflib  # only on a usage error: not at start-up

    found = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return found[0] if found else None


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """' (did you mean X?)' for the candidate closest to `word`, else ''."""
    match = near(word, candidates)
    return f" (did you mean {match}?)" if match else ""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser (its subcommands' parsers are of this class too) whose invalid choices name the
    closest one, and which notes in the namespace which subcommand's parser parsed it (`parse`)."""

    def parse_known_args(self, args: Sequence[str] | None = None, namespace: Any = None):
        namespace, extras = super().parse_known_args(args, namespace)
        if not hasattr(namespace, _PARSER):   # the innermost subcommand's parser returns first
            setattr(namespace, _PARSER, self)
        return namespace, extras

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is not None and value not in action.choices:
            choices = [str(c) for c in action.choices]
            hint = near(str(value), choices)
            hint = f"did you mean {hint!r}? " if hint else ""
            raise argparse.ArgumentError(action, f"invalid choice: {value!r} ({hint}choose from "
                                                 f"{', '.join(map(repr, choices))})")


def options_of(parser: argparse.ArgumentParser) -> list[str]:
    """The long options of a parser (--format, --no-progress, ...)."""
    return [o for action in parser._actions for o in action.option_strings if o.startswith("--")]


def unrecognized(parser: argparse.ArgumentParser, extras: list[str]) -> str:
    """argparse's "unrecognized arguments" message, with a "did you mean" for the first near-miss option."""
    message = f"unrecognized arguments: {' '.join(extras)}"
    for word in extras:
        if word.startswith("--"):
            hint = near(word.split("=", 1)[0], options_of(parser))
            if hint:
                return f"{message} (did you mean {hint}?)"
    return message


def parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """argv parsed; an argument no parser knows is a usage error of the subcommand it was given to (its usage
    printed, exit 2), with a suggestion where it is close to one of that subcommand's options."""
    args, extras = parser.parse_known_args(argv)
    chosen = vars(args).pop(_PARSER, parser)
    if extras:
        chosen.error(unrecognized(chosen, extras))
    return args
