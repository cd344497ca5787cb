"""The layerbench HTML report (scripts/report.py is its command line).

One module per part of the page: data.py merges the results files, headline.py writes the
at-a-glance cards, sections/ holds one module per section of each model and the list that orders
and numbers them (see sections/__init__.py: adding a section is one module and one line there),
page.py assembles index.html and outputs.py writes results.csv and summary.md. The results files
are read by scripts/layerbench_results.py, shared with compare.py and the Slurm fleet.
"""
import matplotlib

# No display: figures only become PNGs. Set before any module of the package imports pyplot.
matplotlib.use("Agg")
