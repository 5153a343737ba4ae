from docgen.cli import run

run()
