"""Watching games: replays as text and as a page, and the boards as pictures."""
