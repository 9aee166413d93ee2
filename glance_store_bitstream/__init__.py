"""Bitstream-aware Glance: a glance_store driver that validates partial
bitstreams while they stream in, and an image-import plugin that derives
their image properties and placement traits (issue 5).

Everything it knows about bitstreams comes from :mod:`nova_fpga.bitstream`.
"""
