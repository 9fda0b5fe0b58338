"""Templates of `simcore new-game`: the minimal one is the Kuhn poker of docs/how-to/kuhn-poker.md."""
