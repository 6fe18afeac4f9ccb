"""sweeps package."""
