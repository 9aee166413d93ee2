"""nova scheduler plugins for Zynq boards (enabled by dotted path)."""
