"""Obvious implementations that rankmeter's production code is checked against."""
