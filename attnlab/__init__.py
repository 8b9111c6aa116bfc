"""attnlab harness: specs, checks, fixtures, template generation and grading for attention exercises."""

__version__ = "0.1.0"
