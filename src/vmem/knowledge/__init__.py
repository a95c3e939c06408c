"""Knowledge layer: deciding when two proposed generalizations say the same thing."""
