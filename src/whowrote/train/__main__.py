"""``python -m whowrote.train CMD ...`` == ``whowrote train CMD ...`` (used under ``accelerate launch``)."""

from whowrote.cli.train import train_app

if __name__ == "__main__":
    train_app(prog_name="whowrote train")
