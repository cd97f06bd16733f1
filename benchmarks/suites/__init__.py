"""The detailed measurement classes that the asv suite ran before it tracked history (issue 32): asv-shaped
(setup/time_/track_), too long for one commit's `make bench` (the whole set took over 30 minutes), so no longer
collected by asv (benchmarks/asv/ is the bounded suite). The tests run them on small inputs; run one by hand:
`python -c "from benchmarks.suites.bench_afa import AfaRun as B; b = B(); b.setup(...)"`."""
