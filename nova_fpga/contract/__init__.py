"""The contract every side of nova-fpga shares: nova's driver, filter and
weigher, Glance's store and import plugin, and the agent on each board.

Each value here (a region state, a payload key, a resource class, a stats
key, a trait name) is written once and imported everywhere it is used.
Nothing in this package imports nova or glance: boards install it too, and
only ``agent_api`` needs oslo.messaging.
"""
