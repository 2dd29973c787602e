"""Errors a user can fix: bad input, settings or files. The CLI prints their message and exits 2;
anything else is a bug and keeps its traceback."""


class InputError(ValueError):
    """Bad input, settings or arguments; the message says what is wrong and what to do."""
