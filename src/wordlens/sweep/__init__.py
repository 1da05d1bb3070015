"""Methods across training checkpoints: any method run on each checkpoint of a model, shown as
layer × training step.

:mod:`.runner` runs a method per checkpoint (:func:`~wordlens.sweep.runner.run_sweep`; the
checkpoints come from :mod:`wordlens.models.revisions`), :mod:`.table` gathers the runs into one
tidy table, :mod:`.figures` draws heat maps of layer × step and lines across steps, and
:mod:`.report` writes the sweep's page. Importing this package imports none of them.
"""
