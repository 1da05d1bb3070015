"""Paper methods: one package each, registered in :mod:`wordlens.methods.registry`."""
