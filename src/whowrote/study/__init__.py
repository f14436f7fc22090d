"""The style study: style vs content probes, maps, signatures, robustness and cross-genre
transfer, written as one self-contained report (``run_study``; CLI ``whowrote study``)."""

from whowrote.study.run import StudyConfig, run_study

__all__ = ["StudyConfig", "run_study"]
