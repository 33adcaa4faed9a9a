"""What every part of a running process shares: logging, its request context, metrics, signals."""
