"""The docs' examples as tests: every command and Python snippet of README.md, docs/ and examples/*/README.md
runs, and the output a page shows is what the program prints (tests/docs/test_examples.py)."""
