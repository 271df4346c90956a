"""Built-in behaviour, registered as ordinary plugins (``trylast``) so any part can be replaced."""
