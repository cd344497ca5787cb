"""The layerbench HTML report (scripts/report.py is its command line).

One module per part of the page: data.py merges the results files, headline.py writes the
at-a-glance cards, sections/ holds one module per section of each model and the list that orders
and numbers them (see sections/__init__.py: adding a section is one module and one line there),
page.py assembles index.html and outputs.py writes results.csv and summary.md. The results files
are read by results_file.py, shared with compare.py (the point-by-point comparison of
scripts/compare.py) and the Slurm fleet, and framework timing files by framework_file.py, shared
with scripts/torch_models.py, which writes them. Both readers need only the standard library.
"""
