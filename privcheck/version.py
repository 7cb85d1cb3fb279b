"""The version of privcheck (read by the report's ``versions`` and ``privcheck --version``)."""

__version__ = "0.1.0"
