"""``python -m simcore ...`` works like the ``simcore`` command."""

from simcore.cli import main

if __name__ == "__main__":
    main(prog_name="simcore")
