"""Trace-quirk analysis (research spec §5.8): what each recipe's rationales say and whether it is true.

- reading one rationale lives in ``task`` (the eval harness scores it too):
  :mod:`whowrote.task.cues` (reason text, cue families, tone, repetition, echo) and
  :mod:`whowrote.task.faithfulness` (:func:`rationale_faithfulness`, claims vs measured features);
- :mod:`whowrote.traces.analyze`: per-recipe/checkpoint statistics of eval trace files;
- :mod:`whowrote.traces.report`: ``summary.json``, figures and ``report.html``.
"""
