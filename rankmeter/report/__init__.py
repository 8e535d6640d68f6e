"""Reports: result and comparison tables, plots and the HTML report."""
