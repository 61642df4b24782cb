"""Tapete: Mil (Thousand) and Mariage (66), an exact engine, records, bots and a browser table."""

__version__ = "0.1.0"
