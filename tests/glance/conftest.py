"""Glance's code reads the global CONF (glance_store, oslo.policy, glance's
own modules at import): parse it once, empty, before they are imported."""
from oslo_config import cfg

cfg.CONF([], project='glance', default_config_files=[])
