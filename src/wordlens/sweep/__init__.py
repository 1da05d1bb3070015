"""Methods across training checkpoints: a method run once per checkpoint of a model (a revision,
a training step), and the sweep report that shows how its numbers change over training, from the
sweep's tidy table (one row per revision, quantity and layer) and its table of revisions."""
