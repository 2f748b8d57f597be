"""``python -m sjfbsbf``: the command line."""

from sjfbsbf.cli import app

if __name__ == "__main__":
    app(prog_name="sjfbsbf")
