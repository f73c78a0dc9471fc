"""One reducer per content family. Each turns raw bytes into a ``Plan`` and never raises on odd input."""
