"""The jaxcheckers test suite (a package, so `tests.reference` never resolves to a stray site-packages `tests`)."""
