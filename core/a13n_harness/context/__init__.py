"""The pure core: bytes and values in, values out. No I/O, no clock, no environment."""
