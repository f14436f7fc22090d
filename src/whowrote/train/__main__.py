"""``python -m whowrote.train CMD ...`` == ``whowrote train CMD ...`` (used under ``accelerate launch``),
with the same one-line errors as the console script."""

import sys

from whowrote.cli import main

if __name__ == "__main__":
    main(["train", *sys.argv[1:]])
