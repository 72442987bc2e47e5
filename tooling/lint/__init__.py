"""Import-linter contracts of our own."""
