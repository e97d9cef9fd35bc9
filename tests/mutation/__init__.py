"""`make mutation`: mutmut over the core modules and the report it writes (docs/mutation.md)."""
