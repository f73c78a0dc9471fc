"""Live tail source (placeholder until it lands)."""
