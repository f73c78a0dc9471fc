"""Pure functions and bytewax operator builders of nolife-tokens."""
