"""Studies: many models × methods run from one YAML file, resumable, with one report."""
