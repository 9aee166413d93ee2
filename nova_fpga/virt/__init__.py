"""The Zynq virt driver: boards as compute nodes, regions as servers.

nova loads it as ``compute_driver = zynq.ZynqDriver`` through the thin
``nova.virt.zynq`` module this distribution ships (nova imports drivers only
from its own namespace).
"""
