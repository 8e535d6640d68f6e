"""Reports: text tables, and later comparison tables, plots and HTML."""
