"""whowrote: name the AI assistant that wrote a long text, and say why."""

__version__ = "0.1.0"
