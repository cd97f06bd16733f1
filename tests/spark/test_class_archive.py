"""The Spark driver's class archive (cepkit.spark_jobs.class_archive): which JVM options a session gets, and a
build that cannot run says so in a line instead of failing the install. (A file that is no archive leaves a run
as it was: tests/spark/test_spark_csv_strict.py's child process. That an archive made for another class path
warns on the JVM's stdout unless QUIET, and that a real one halves the session's start, was checked by hand:
docs/spark.md.)"""
from __future__ import annotations

from cepkit.spark_jobs import class_archive as CA


def test_no_archive_no_options(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv(CA.DUMP_ENV, raising=False)
    path = CA.archive_path()
    assert path is not None and path.is_relative_to(tmp_path) and not path.exists()
    assert CA.java_options() == ""


def test_a_built_archive_is_mapped_quietly(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv(CA.DUMP_ENV, raising=False)
    path = CA.archive_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"an archive")
    assert CA.java_options() == f"-XX:SharedArchiveFile={path} {CA.QUIET}"


def test_the_build_child_dumps_its_classes(tmp_path, monkeypatch):
    monkeypatch.setenv(CA.DUMP_ENV, str(tmp_path / "x.part"))
    assert CA.java_options() == f"-XX:ArchiveClassesAtExit={tmp_path / 'x.part'} {CA.QUIET}"


def test_the_archive_is_named_after_the_java(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = CA.archive_path()
    java = tmp_path / "jdk" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text("")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
    assert CA.archive_path() not in (None, first)


def test_a_build_without_java_is_a_line_not_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-java"))
    assert CA.build() == "no class archive: no Java or no PySpark here"
    assert not (tmp_path / "cepkit").exists()


def test_a_build_whose_jobs_fail_says_so_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(CA, "WARM_JOBS", "raise SystemExit('the jobs failed here')")
    assert CA.build() == "no class archive: its Spark jobs failed (the jobs failed here)"
    assert list((tmp_path / "cepkit" / "jvm").iterdir()) == []
