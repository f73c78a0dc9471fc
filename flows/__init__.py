"""Dataflows and the command line that drives them."""
