"""Tests of the trainers (`training/`, imported as `jaxcheckers.training`) and their command."""
