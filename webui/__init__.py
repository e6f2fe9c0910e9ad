"""The local web page and the game session: what the players see beside the table."""

from webui.app import create_app

__all__ = ["create_app"]
